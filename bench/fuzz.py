"""F1 long form: property-style fuzzing of every inbound envelope and payload type through a real socket.

Run: python -m bench.fuzz [--cases 100000] [--seed 1] [--connections 8]

A real hub (`lineup serve`) on 127.0.0.1. Agent and app sockets send generated frames in lock step: a valid
envelope of each inbound type (hub/protocol/payloads.py APP_INBOUND, AGENT_INBOUND, plus system.ping), then
mutated — fields dropped, retyped, oversized, unicode, nested junk, wrong version/workspace/ids, broken JSON,
non-object JSON, binary frames and the odd oversize frame. Counted: answers per frame (an ack, error or pong:
exactly one), answers for the wrong id, closes by code (1011 must be zero; 1003 for binary, 1009 for
oversize and 1008 for the flood limit of 100 bad frames in 10 s are expected; the fuzzer reconnects), unhandled exceptions in the hub log (zero), and then `python -m hub db check`.
Bounded: --cases frames, --max-seconds wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import websockets

from bench.targets import HubTarget
from hub.protocol.payloads import AGENT_INBOUND, APP_INBOUND

ANSWERS = ("system.ack", "system.error", "system.pong")
JUNK: list[Any] = [None, True, False, 0, -1, 2**63, 1e308, float("nan"), "", " ", "x" * 5000, "\u0000", "é\u202e🦄",
                   [], [1, "a"], {}, {"a": {"b": {"c": [None]}}}, "null", "../../etc/passwd", "'; DROP TABLE events;--"]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def base_payload(type_: str, ctx: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A plausible payload for each inbound type (valid or nearly so)."""
    n = rng.randrange(1_000_000)
    return {
        "conversation.create": {"title": f"fuzz {n}", "agentIds": [ctx["agent_id"]]},
        "message.create": {"content": f"fuzz message {n}"},
        "message.delta": {"messageId": f"m-{n}", "offset": 0, "text": "part"},
        "task.create": {"title": f"fuzz task {n}", "targetAgentId": ctx["agent_id"]},
        "task.cancel_requested": {"reason": "fuzz"},
        "task.accepted": {},
        "task.status_changed": {"status": rng.choice(["running", "completed", "failed", "bogus"]), "progress": 50},
        "task.child_created": {"childTaskId": f"t-{n}"},
        "interaction.requested": {"interaction": {"id": f"int-{n}", "kind": "approval", "title": "ok?"}},
        "interaction.respond": {"interactionId": f"int-{n}", "outcome": "approved"},
        "artifact.created": {"artifact": {"id": f"a-{n}", "kind": "text", "title": "x"}},
        "tool.list": {},
        "tool.call": {"call_id": f"call-{n}", "name": "fuzz_tool", "arguments": {"a": 1}},
        "tool.result": {"call_id": f"call-{n}", "name": "fuzz_tool", "result": {"ok": True}},
        "system.ping": {},
    }.get(type_, {"anything": n})


def mutate_value(rng: random.Random, value: Any) -> Any:
    choice = rng.random()
    if choice < 0.5:
        return rng.choice(JUNK)
    if isinstance(value, str):
        return value * rng.randint(2, 50) if choice < 0.7 else value[: rng.randint(0, len(value))]
    if isinstance(value, dict):
        return {k: mutate_value(rng, v) for k, v in value.items()}
    if isinstance(value, list):
        return [mutate_value(rng, v) for v in value] + [rng.choice(JUNK)]
    return rng.choice(JUNK)


def make_case(rng: random.Random, kind: str, ctx: dict[str, Any]) -> tuple[str, str | bytes, str | None]:
    """(label, frame, envelope id to expect in the answer or None)."""
    types = sorted(AGENT_INBOUND if kind == "agent" else APP_INBOUND) + ["system.ping"]
    type_ = rng.choice(types)
    env_id = str(uuid.uuid4())
    env: dict[str, Any] = {"id": env_id, "type": type_, "version": "0.1", "occurredAt": now_iso(),
                           "workspaceId": ctx["workspace_id"], "payload": base_payload(type_, ctx, rng)}
    if type_.startswith(("message.", "conversation.", "task.create", "interaction.", "artifact.", "tool.")):
        env["conversationId"] = ctx["conversation_id"]
    if type_.startswith("task.") and type_ != "task.create":
        env["taskId"] = rng.choice([ctx.get("task_id") or "t-none", f"t-{rng.randrange(100)}"])
    r = rng.random()
    if r < 0.15:
        return f"valid:{type_}", json.dumps(env), env_id
    if r < 0.45:  # payload fields
        payload = env["payload"]
        for _ in range(rng.randint(1, 3)):
            op = rng.random()
            if op < 0.3 and payload:
                payload.pop(rng.choice(list(payload)))
            elif op < 0.8 and payload:
                key = rng.choice(list(payload))
                payload[key] = mutate_value(rng, payload[key])
            else:
                payload[rng.choice(["_secret", "extra", "", "payload", "sequence"])] = rng.choice(JUNK)
        if rng.random() < 0.1:
            env["payload"] = rng.choice(JUNK)
        return f"payload:{type_}", json.dumps(env, allow_nan=True), env_id
    if r < 0.75:  # envelope fields
        key = rng.choice(["type", "version", "occurredAt", "workspaceId", "payload", "conversationId", "taskId",
                          "correlationId", "sequence", "epoch", "idempotencyKey"])
        if rng.random() < 0.3 and key in env:
            del env[key]
        else:
            env[key] = rng.choice(JUNK + ["agent.hello", "app.hello", "system.ack", "message.created", "0.2",
                                          "not-a-time", "ws-other", f"c-{rng.randrange(9)}"])
        if rng.random() < 0.1:
            env["id"] = rng.choice(JUNK)
            return "envelope:id", json.dumps(env, allow_nan=True), None
        return f"envelope:{key}", json.dumps(env, allow_nan=True), env_id
    if r < 0.9:  # text that is not an envelope
        text = rng.choice([
            json.dumps(env)[: rng.randint(0, 80)], "", " ", "null", "[]", "42", '"a string"', "{", "}}}",
            "\ufeff" + json.dumps(env), json.dumps([env]), "{\"id\": \"x\", \"id\": \"y\"}",
            "\udcff".encode("utf-8", "surrogatepass").decode("utf-8", "replace"), "{" * 5000 + "}" * 5000])
        return "text", text, None
    if r < 0.995:  # deep or wide but under the size limit
        env["payload"] = {"deep": json.loads("[" * 200 + "]" * 200)} if rng.random() < 0.5 else \
            {f"k{i}": i for i in range(rng.randint(100, 5000))}
        return f"shape:{type_}", json.dumps(env), env_id
    if r < 0.998:
        return "binary", json.dumps(env).encode(), None
    return "oversize", json.dumps({**env, "payload": {"content": "o" * (1_100_000)}}), None


class Runner:
    def __init__(self, url: str, kind: str, secret: str, ctx: dict[str, Any], rng: random.Random) -> None:
        self.url, self.kind, self.secret, self.ctx, self.rng = url, kind, secret, ctx, rng
        self.counts: Counter[str] = Counter()
        self.closes: Counter[str] = Counter()
        self.labels: Counter[str] = Counter()
        self.examples: list[str] = []

    async def _open(self) -> Any:
        ws = await websockets.connect(self.url + ("/ws/agent" if self.kind == "agent" else "/ws/app"),
                                      max_size=None, compression=None, ping_interval=None)
        hello: dict[str, Any] = {"credential": self.secret, "runtime": "fuzz", "agentVersion": "1"} \
            if self.kind == "agent" else {"token": self.secret}
        await ws.send(json.dumps({"id": str(uuid.uuid4()), "type": f"{self.kind}.hello", "version": "0.1",
                                  "occurredAt": now_iso(), "payload": hello}))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame["type"] == "system.caught_up":
                return ws
            if frame["type"] == "system.error":
                raise RuntimeError(f"hello refused: {frame}")

    async def next_answer(self, ws: Any, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                frame = json.loads(await asyncio.wait_for(ws.recv(), left))
            except TimeoutError:
                return None
            if frame.get("sequence") is None and frame["type"] in ANSWERS:
                return frame  # stored events (with a sequence) and tool.call pushes are not answers

    async def run(self, cases: int, stop_at: float) -> None:
        ws = await self._open()
        for _ in range(cases):
            if time.monotonic() > stop_at:
                self.counts["not_run_time_limit"] += 1
                continue
            label, frame, env_id = make_case(self.rng, self.kind, self.ctx)
            if len(frame) > 1_048_576:
                label = "oversize"  # a mutation can pass ws_max_size too: 1009 is then the answer
            self.labels[label.split(":")[0]] += 1
            self.counts["sent"] += 1
            try:
                await ws.send(frame)
                answer = await self.next_answer(ws, 10.0)
                if answer is None:
                    self.counts["no_answer"] += 1
                    self.examples.append(f"no answer: {label} {str(frame)[:200]}")
                    continue
                self.counts["answered"] += 1
                self.counts[answer["type"]] += 1
                got_id = answer.get("payload", {}).get("id") if answer["type"] != "system.pong" \
                    else answer.get("correlationId")
                if env_id is not None and got_id is not None and got_id != env_id:
                    self.counts["wrong_id"] += 1
                    self.examples.append(f"wrong id: {label} expected {env_id} got {got_id}")
                if answer["type"] == "system.error" and answer["payload"].get("code") == "internal":
                    self.counts["internal_error"] += 1
                    self.examples.append(f"internal: {label} {str(frame)[:300]}")
            except (TimeoutError, websockets.ConnectionClosed) as exc:
                code = getattr(ws, "close_code", None)
                self.closes[f"{code}:{label.split(':')[0]}"] += 1
                if code == 1008:
                    self.counts["flood_closes"] += 1  # > 100 bad frames in 10 s: the designed flood limit
                elif code not in (1003, 1009):
                    self.examples.append(f"close {code} {getattr(ws, 'close_reason', '')!r} on {label}: {str(frame)[:200]}")
                if code == 1011:
                    self.examples.append(f"1011 on {label}: {str(frame)[:300]}")
                if code is None:
                    self.counts["timeout"] += 1
                    self.examples.append(f"{type(exc).__name__}: {label} {str(frame)[:200]}")
                await ws.close()
                ws = await self._open()
        # Anything arriving after the last answer would be an extra answer.
        try:
            while True:
                extra = await self.next_answer(ws, 1.0)
                if extra is None:
                    break
                self.counts["extra_answers"] += 1
        except websockets.ConnectionClosed:
            pass
        await ws.close()


async def fuzz(target: HubTarget, fixture: Any, cases: int, connections: int, seed: int, max_s: float) -> list[Runner]:
    agents = fixture.agents
    runners = []
    for i in range(connections):
        spec = agents[i % len(agents)]
        kind = "agent" if i % 2 == 0 else "app"
        ctx = {"workspace_id": fixture.workspace_id, "agent_id": spec["agentId"],
               "conversation_id": spec["conversationId"], "task_id": None}
        runners.append(Runner(target.ws_url, kind, spec["credential"] if kind == "agent" else fixture.token, ctx,
                              random.Random(seed * 1000 + i)))
    per = [cases // connections + (1 if i < cases % connections else 0) for i in range(connections)]
    stop_at = time.monotonic() + max_s
    await asyncio.gather(*(r.run(n, stop_at) for r, n in zip(runners, per, strict=False)))
    return runners


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=1800.0)
    args = parser.parse_args(argv)

    target = HubTarget()
    target.start()
    started = time.monotonic()
    try:
        fixture = target.prepare(max(1, args.connections // 2))
        runners = asyncio.run(fuzz(target, fixture, args.cases, args.connections, args.seed, args.max_seconds))
        elapsed = time.monotonic() - started
        alive = target.proc is not None and target.proc.poll() is None
    finally:
        target.stop()
    log = target.log_path.read_text(errors="replace") if target.log_path.exists() else ""
    tracebacks = log.count("Traceback")
    error_lines = sum(1 for line in log.splitlines() if " ERROR " in line or " CRITICAL " in line)
    check = target.cli("db", "check", check=False)

    counts: Counter[str] = Counter()
    closes: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    examples: list[str] = []
    for r in runners:
        counts.update(r.counts)
        closes.update(r.closes)
        labels.update(r.labels)
        examples += r.examples
    close_1011 = sum(v for k, v in closes.items() if k.startswith("1011:"))
    unexpected_closes = sum(v for k, v in closes.items()
                            if not (k == "1003:binary" or k == "1009:oversize" or k.startswith("1008:")))
    answered_one = counts["answered"] == counts["sent"] - sum(closes.values()) - counts["no_answer"]
    print(f"fuzz: {counts['sent']} frames over {args.connections} sockets in {elapsed:.1f} s (seed {args.seed})")
    print(f"  cases by kind: {dict(labels)}")
    print(f"  answers: {counts['answered']} (ack {counts['system.ack']}, error {counts['system.error']}, "
          f"pong {counts['system.pong']}); no answer {counts['no_answer']}; extra answers {counts['extra_answers']}; "
          f"wrong id {counts['wrong_id']}; internal errors {counts['internal_error']}")
    print(f"  closes: {dict(closes)}; 1011: {close_1011}; unexpected: {unexpected_closes}")
    print(f"  hub log: {tracebacks} tracebacks, {error_lines} ERROR lines; hub alive at the end: {alive}")
    print(f"  db check: rc {check.returncode} {check.stdout.strip().splitlines()[-1:] if check.stdout else ''}")
    for e in examples[:10]:
        print("  example:", e)
    ok = (answered_one and counts["no_answer"] == 0 and counts["extra_answers"] == 0 and counts["wrong_id"] == 0
          and counts["internal_error"] == 0 and close_1011 == 0 and unexpected_closes == 0 and tracebacks == 0
          and error_lines == 0 and alive and check.returncode == 0 and counts["not_run_time_limit"] == 0)
    print("F1 fuzz:", "PASS" if ok else "FAIL")
    if not ok and tracebacks:
        print(log[log.index("Traceback"):][:3000])
    target.cleanup()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""`lineup hook hermes-bridge`: the hub side of LineUp's Hermes platform plugin (docs/agents.md, "Hermes as a
messaging platform (always on)").

The plugin (integrations/hermes_plugin/, inside `hermes gateway`) starts this process and talks to it in JSON lines
over stdin/stdout (integrations/hermes_plugin/lineproto.py says which). This side is an SDK agent: the person's
messages (`message.delivered`) go to Hermes, what Hermes says becomes messages, Hermes's exec approvals and clarify
questions become cards whose answers go back, and a card whose deadline passes (Hermes stops waiting at
`approvals.timeout`) is withdrawn a second before, saying so.

Nothing is done twice and nothing is lost across restarts of either side:

- Ids derive from Hermes's: a message from the hub keeps the event's id, a message from Hermes the plugin's line id
  (sent again with the same id to a restarted bridge), a card the plugin's approval id (Hermes's session and
  command, the n-th such request of that Hermes process). Sent again, each is the same envelope, stored once.
- The cursor in `hermes-bridge.json` (beside the credential, in its `.state` folder, owner-only) moves past an event
  only once the plugin has acknowledged it, so a bridge killed before Hermes took a message is given it again
  when it restarts; events acknowledged beyond an older one still open are listed (`done`) and not given twice.
  (The SDK's own state file moves on as soon as an event arrives: right for an agent that acts within its own
  process, not for one that hands events to another.)
- Cards are journaled with their deadline and the Hermes process (`boot`) that asked: a new Hermes (restarted)
  has no request waiting, so the cards of the old one are withdrawn ("Hermes restarted"); a restarted bridge
  arms the deadlines again.
- While the hub cannot be reached, what Hermes says waits in the SDK's outbox and is stored when it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub.connect import integrations
from hub.connect.hooks import SHORT_COMMAND, clip
from hub.connect.session_state import digest
from hub.sdk import AgentClient, AuthError, Credential, HubError, OutboxFull, ReplacedError, approvals, load_credential
from hub.sdk.privatefile import write_private_json
from hub.sdk.tlspin import PinMismatch

if TYPE_CHECKING:  # for mypy, the file itself (integrations/ is on its path); at run time, the same file by path
    from hermes_plugin import lineproto
else:
    lineproto = integrations.hermes_lineproto()

log = logging.getLogger("lineup.hermes")

STATE_FILE = "hermes-bridge.json"
HELLO_TIMEOUT_S = 30.0      # the plugin says hello first thing; a process that says nothing is not the plugin
DRAIN_S = 5.0               # at the end of stdin (Hermes stopped), what is still on its way gets this long
EARLY_S = 1.0               # a card is withdrawn this long before Hermes stops waiting: never answered in vain
FATAL_EXIT = 3              # the plugin does not start a bridge that exited with this again
CAPABILITIES = ["messages", "approval", "choice", "input"]

APPROVAL_OPTIONS = [
    {"id": "once", "label": "Allow once", "style": "primary",
     "description": "Hermes runs it this time and asks again next time."},
    {"id": "session", "label": "Allow for this session", "style": "secondary",
     "description": "Hermes runs it and stops asking for commands like it until this chat's session ends "
                    "(a new session, /new or /reset, asks again). Not always."},
    {"id": "always", "label": "Allow always", "style": "secondary",
     "description": "Hermes runs it and never asks for commands like it again: it adds them to its permanent "
                    "allowlist (command_allowlist in its config.yaml)."},
    {"id": "deny", "label": "Deny", "style": "danger",
     "description": "Hermes does not run it; a note you add is what Hermes is told."},
]
SESSION_ONLY = ("once", "session", "deny")
SMART_DENIED = ("once", "deny")
DONE_REASONS = {
    "timeout": "Hermes stopped waiting after {timeout} (denied).",
    "deny": "Hermes stopped waiting: it was denied in Hermes (/deny, /stop or the session ended).",
    "shutdown": "Hermes stopped (or restarted) and denied it; it no longer waits for this answer.",
    "once": "Answered in Hermes (/approve): it was allowed once.",
    "session": "Answered in Hermes (/approve session): it was allowed for the session.",
    "always": "Answered in Hermes (/approve always): it was allowed always.",
}


def state_dir(credential_path: Path) -> Path:
    return credential_path.with_name(credential_path.stem + ".state")


def seconds(value: float) -> str:
    return f"{value:g} s" if value < 120 else f"{value / 60:g} min"


def iso(timestamp: float) -> str:
    """The card's deadline: whole seconds, rounded down (never later than Hermes's own)."""
    return datetime.fromtimestamp(int(timestamp), UTC).isoformat().replace("+00:00", "Z")


class State:
    """The bridge's own file: where the hub's log was handed over to Hermes, and the cards that may still wait.

    A bridge without one starts at the log's beginning, but gives Hermes only what the person said from
    `SINCE_SLACK_S` before the credential was written (`lineup connect hermes` paired it) on: an agent paired again
    as itself (a new credential file) keeps its conversations, whose old messages Hermes must not act on again."""

    SINCE_SLACK_S = 600.0  # the phone's clock may be off: a message sent as the agent was paired still counts

    def __init__(self, path: Path, agent_id: str, paired_at: float) -> None:
        self.path = path
        self.agent_id = agent_id
        self.epoch: str | None = None
        self.cursor = 0
        self.done: set[int] = set()
        self.cards: dict[str, dict[str, Any]] = {}
        self.since = paired_at - self.SINCE_SLACK_S
        try:
            import json

            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("agentId") != agent_id:
            return  # another agent's (paired again with a fresh code): start afresh
        if isinstance(data.get("since"), (int, float)):
            self.since = float(data["since"])
        self.epoch = data.get("epoch") if isinstance(data.get("epoch"), str) else None
        self.cursor = data["cursor"] if isinstance(data.get("cursor"), int) and data["cursor"] >= 0 else 0
        self.done = {s for s in data.get("done") or [] if isinstance(s, int) and s > self.cursor}
        cards = data.get("cards")
        self.cards = {k: v for k, v in cards.items() if isinstance(v, dict)} if isinstance(cards, dict) else {}

    def save(self) -> None:
        write_private_json(self.path, {"agentId": self.agent_id, "epoch": self.epoch, "cursor": self.cursor,
                                       "done": sorted(self.done), "cards": self.cards, "since": self.since})

    def older(self, occurred_at: Any) -> bool:
        """A message sent before this agent was connected to Hermes (see the class)."""
        try:
            when = datetime.fromisoformat(str(occurred_at).replace("Z", "+00:00")).timestamp()
        except ValueError:
            return False
        return when < self.since


class Bridge:
    def __init__(self, client: AgentClient, state: State, out: asyncio.StreamWriter) -> None:
        self.client = client
        self.state = state
        self.out = out
        self.boot = ""
        self._open: set[int] = set()          # events handed to the plugin, not acknowledged yet
        self._seen_max = state.cursor
        self._waiting: dict[str, tuple[int, str]] = {}  # plugin line id -> (event sequence, card id or "")
        self._sent: dict[str, None] = {}      # plugin lines done in this process (a repeat is acked at once)
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._write_lock = asyncio.Lock()
        client.on("message.delivered")(self._delivered)
        client.on("interaction.resolved")(self._resolved)
        client.on_task(self._task)

    # ---- to the plugin -------------------------------------------------------------------------------------

    async def tell(self, message: dict[str, Any]) -> None:
        async with self._write_lock:
            try:
                self.out.write(lineproto.encode(message))
                await self.out.drain()
            except (OSError, ConnectionError, lineproto.BadLine) as exc:
                log.warning("could not tell the plugin %s: %s", message.get("t"), exc)

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_log_failure)

    # ---- the cursor ----------------------------------------------------------------------------------------

    def _take(self, sequence: int) -> bool:
        """Whether this event is to be handled: not if it was handed over before (a replay after a restart)."""
        if sequence <= self.state.cursor:
            # The SDK started over from the log's beginning (system.resync_required: the hub's log was reset or
            # restored): the cursor of the old log means nothing in this one.
            log.info("the hub's log started over; handing events over from its beginning")
            self.state.cursor, self.state.done, self._seen_max = 0, set(), 0
        if sequence in self.state.done:
            return False
        self._open.add(sequence)
        self._seen_max = max(self._seen_max, sequence)
        return True

    def _done(self, sequence: int) -> None:
        self._open.discard(sequence)
        self.state.done.add(sequence)
        floor = min(self._open) - 1 if self._open else self._seen_max
        if floor > self.state.cursor:
            self.state.cursor = floor
            self.state.done = {s for s in self.state.done if s > floor}
        self.state.epoch = self.client.epoch
        self.state.save()

    # ---- from the hub --------------------------------------------------------------------------------------

    async def _delivered(self, frame: dict[str, Any]) -> None:
        sequence = int(frame["sequence"])
        if not self._take(sequence):
            return
        payload = frame.get("payload") or {}
        author = payload.get("author") or {}
        conversation = frame.get("conversationId")
        text: str = payload["content"] if isinstance(payload.get("content"), str) else ""
        files = [str(a.get("name") or a.get("fileId") or "a file") for a in payload.get("attachments") or []
                 if isinstance(a, dict)]
        if files:
            text += ("\n\n" if text else "") + f"(Attached in LineUp, not passed on to Hermes: {', '.join(files)})"
        if author.get("kind") != "user" or not isinstance(conversation, str) \
                or not lineproto.ID.fullmatch(conversation) or not text or self.state.older(frame.get("occurredAt")):
            self._done(sequence)
            return
        line_id = "m" + digest(frame["id"])
        self._waiting[line_id] = (sequence, "")
        user = str(author.get("id") or "")
        await self.tell({"t": "message", "id": line_id, "chat": conversation, "text": text[:lineproto.MAX_TEXT],
                         **({"user": user} if lineproto.ID.fullmatch(user) else {})})

    async def _resolved(self, frame: dict[str, Any]) -> None:
        sequence = int(frame["sequence"])
        if not self._take(sequence):
            return
        payload = frame.get("payload") or {}
        card_id = str(payload.get("interactionId") or "")
        card = self.state.cards.get(card_id)
        if card is None:
            self._done(sequence)
            return
        self._disarm(card_id)
        outcome, response = payload.get("outcome"), payload.get("response") or {}
        if outcome not in ("answered", "declined"):
            # Expired, or withdrawn (by this bridge: Hermes had stopped waiting), or the agent was revoked.
            del self.state.cards[card_id]
            self._done(sequence)
            return
        comment = str(response.get("comment") or "")[:4000]
        if card["kind"] == "approval":
            choice = str(response.get("optionId")) if outcome == "answered" else "deny"
            if choice not in lineproto.CHOICES:
                choice = "deny"
            message: dict[str, Any] = {"t": "answer", "id": card["line"], "choice": choice,
                                       **({"reason": f"The person denied this in LineUp: {comment}"}
                                          if choice == "deny" and comment else {})}
        else:
            message = {"t": "reply", "id": card["line"], "text": _reply_text(card, outcome, response)}
        self._waiting[card["line"]] = (sequence, card_id)
        await self.tell(message)

    async def _task(self, task: Any) -> None:
        await task.fail("not_a_task", "Hermes, connected as a messaging platform, takes messages, not tasks: send "
                                      "your request again as a plain message (without \u201cTrack as task\u201d).")

    # ---- from the plugin -----------------------------------------------------------------------------------

    async def line(self, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "hello":
            self.hello(message)
        elif kind == "ack":
            await self._acked(message)
        elif message["id"] in self._sent:
            await self.tell({"t": "ack", "id": message["id"], "ok": True})
        elif kind == "send":
            self.spawn(self._say(message))
        elif kind in ("approval", "clarify"):
            self.spawn(self._ask(message))
        elif kind in ("approval_done", "clarify_done"):
            self.spawn(self._finished(message))

    def hello(self, message: dict[str, Any]) -> None:
        self.boot = message["boot"]
        for card_id, card in list(self.state.cards.items()):
            if card.get("boot") != self.boot:
                # That Hermes is gone (restarted): nothing waits for this answer any more.
                del self.state.cards[card_id]
                self.spawn(self._withdraw(card_id, "Hermes restarted and no longer waits for this answer."))
            else:
                self._arm(card_id, card)
        self.state.save()

    async def _acked(self, message: dict[str, Any]) -> None:
        waiting = self._waiting.pop(message["id"], None)
        if waiting is None:
            return
        sequence, card_id = waiting
        card = self.state.cards.pop(card_id, None) if card_id else None
        self._done(sequence)
        if card is not None and not message.get("applied", True):
            # Answered on the card, but Hermes had stopped waiting (its deadline, a restart, /stop) first. (Said in
            # a task of its own: the lines from the plugin are read on while the hub is away.)
            what = "run the command" if card["kind"] == "approval" else "take the answer"
            self.spawn(self._note(card, f"notlate-{card_id}", f"Hermes had already stopped waiting when your answer "
                                                              f"came, so it did not {what}."))

    async def _say(self, message: dict[str, Any]) -> None:
        message_id = "msg_hermes_" + digest(self.client.credential.agent_id, message["id"])
        error = ""
        if message["text"].strip():
            error = await self._store("message.create", {"content": message["text"], "messageId": message_id},
                                      message_id, message["chat"])
        await self._ack(message["id"], error)

    async def _ask(self, message: dict[str, Any]) -> None:
        card_id = "int_hermes_" + digest(self.client.credential.agent_id, message["id"])
        if message["t"] == "approval":
            interaction = approval_card(message, card_id)
            if interaction is None:
                await self._note({"conv": message["chat"]}, f"big-{card_id}",
                                 f"Hermes asks to run a command of {len(message['command']):,} characters, too long "
                                 "to show whole on a card: answer it in this chat with /approve or /deny.",
                                 waits=True)
                await self._ack(message["id"], "too long for a card")
                return
        else:
            interaction = question_card(message, card_id)
        card = {"kind": message["t"], "line": message["id"], "conv": message["chat"], "boot": self.boot,
                "deadline": message["deadline"], "timeout": message["timeout"],
                **({"choices": message.get("choices") or []} if message["t"] == "clarify" else {})}
        if message["deadline"] - EARLY_S <= time.time():
            await self._note(card, f"gone-{card_id}", f"Hermes asked while LineUp could not reach it and stopped "
                                                      f"waiting after {seconds(message['timeout'])}: "
                                                      f"{interaction['title']}")
            await self._ack(message["id"], "Hermes stopped waiting before the hub could be reached")
            return
        self.state.cards[card_id] = card
        self.state.save()
        self._arm(card_id, card)
        error = await self._store("interaction.requested", {"interaction": interaction}, f"ask-{card_id}",
                                  message["chat"])
        if error:
            self.state.cards.pop(card_id, None)
            self.state.save()
            self._disarm(card_id)
            if message["deadline"] - EARLY_S <= time.time():  # the hub came back after Hermes had stopped waiting
                await self._note(card, f"gone-{card_id}", f"Hermes asked while LineUp could not reach it and "
                                                          f"stopped waiting after {seconds(message['timeout'])}: "
                                                          f"{interaction['title']}")
        await self._ack(message["id"], error)

    async def _finished(self, message: dict[str, Any]) -> None:
        line_id = message["id"].removesuffix(".done")
        card_id = "int_hermes_" + digest(self.client.credential.agent_id, line_id)
        card = self.state.cards.pop(card_id, None)
        if card is not None:
            self.state.save()
            self._disarm(card_id)
            how = message.get("how", "")
            if card["kind"] == "approval":
                reason = DONE_REASONS.get(how, "Hermes stopped waiting for this answer.")
            else:
                reason = "Answered in the conversation, or Hermes stopped waiting for it."
            await self._withdraw(card_id, reason.format(timeout=seconds(card["timeout"])))
        await self._ack(message["id"], "")

    # ---- deadlines -----------------------------------------------------------------------------------------

    def _arm(self, card_id: str, card: dict[str, Any]) -> None:
        self._disarm(card_id)
        delay = max(0.0, float(card["deadline"]) - EARLY_S - time.time())
        self._timers[card_id] = asyncio.get_running_loop().call_later(delay, self._expire, card_id)

    def _disarm(self, card_id: str) -> None:
        timer = self._timers.pop(card_id, None)
        if timer is not None:
            timer.cancel()

    def _expire(self, card_id: str) -> None:
        self._timers.pop(card_id, None)
        card = self.state.cards.get(card_id)
        if card is None:
            return
        if card["kind"] == "approval":
            reason = f"Hermes stopped waiting after {seconds(card['timeout'])} (denied)."
        else:
            reason = f"Hermes stopped waiting for an answer after {seconds(card['timeout'])}."
        self.spawn(self._withdraw(card_id, reason))

    # ---- to the hub ----------------------------------------------------------------------------------------

    async def _store(self, type_: str, payload: dict[str, Any], envelope_id: str, conversation: str) -> str:
        """Send and wait for the ack; waits (never drops) while the hub is away. '' when stored, else why not."""
        while True:
            try:
                await self.client.send(type_, payload, id=envelope_id, conversationId=conversation)
                return ""
            except OutboxFull:
                await asyncio.sleep(1.0)
            except HubError as exc:
                if exc.code == "conflict":
                    return ""  # the same id holds it already
                log.warning("the hub refused %s: %s: %s", type_, exc.code, exc.message)
                return f"{exc.code}: {exc.message}"[:2000]

    async def _withdraw(self, card_id: str, reason: str) -> None:
        try:
            await self.client.withdraw(card_id, reason)
        except HubError as exc:
            log.info("withdrawing %s: %s", card_id, exc)

    async def _note(self, card: dict[str, Any], key: str, text: str, *, waits: bool = False) -> None:
        """A line in the conversation, said once (its id from `key`); `waits`: Hermes waits for the person there
        (notified as such, docs/notifications.md)."""
        message_id = "msg_hermes_" + digest(self.client.credential.agent_id, key)
        await self._store("message.create", {"content": text, "messageId": message_id,
                                             **({"attention": True} if waits else {})}, message_id, card["conv"])

    async def _ack(self, line_id: str, error: str) -> None:
        self._sent[line_id] = None
        while len(self._sent) > 10_000:
            del self._sent[next(iter(self._sent))]
        await self.tell({"t": "ack", "id": line_id, "ok": not error, **({"error": error} if error else {})})


def kinds_of(description: str) -> str:
    """The kinds of danger Hermes found, as it remembers them ("recursive delete"; several joined by "; ")."""
    found = [f"“{kind.strip()}”" for kind in description.split(";") if kind.strip()]
    return ", ".join(found) or "the same kind of danger"


def approval_options(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Hermes's options for this approval, each saying exactly what Hermes remembers: "for this session" and
    "always" allow every command Hermes flags with the same kinds of danger, not only this one."""
    allowed = SMART_DENIED if message.get("smart_denied") else \
        tuple(o["id"] for o in APPROVAL_OPTIONS) if message["permanent"] else SESSION_ONLY
    kinds = kinds_of(str(message.get("description") or ""))
    remembered = {
        "session": f"Hermes runs it and, until this chat's session ends (a new session, /new or /reset, asks again), "
                   f"runs without asking every command it flags as {kinds}. Not always.",
        "always": f"Hermes runs it and adds {kinds} to its permanent allowlist (command_allowlist in its "
                  f"config.yaml): from now on every command it flags as {kinds} runs without asking, in every chat.",
    }
    return [{**o, "description": clip(remembered.get(o["id"], o["description"]), 2000)}
            for o in APPROVAL_OPTIONS if o["id"] in allowed]


def approval_card(message: dict[str, Any], card_id: str) -> dict[str, Any] | None:
    """Hermes's exec approval as a card: the whole command (the hub judges its risk), Hermes's options in its words,
    its deadline. None when the command does not fit on a card whole."""
    command = message["command"]
    subject = approvals.fits(approvals.command_approval(command))
    if subject is None:
        return None
    one_line = command.strip()
    wants = f"run: {one_line}" if len(command) <= SHORT_COMMAND and "\n" not in one_line \
        else f"run a {len(command):,}-character command"
    reason = str(message.get("description") or "").strip()
    description = f"Hermes asks before it runs this: {reason}." if reason else "Hermes asks before it runs this."
    if message.get("smart_denied"):
        description += " Its own reviewer model said no; allowing overrides that for this one command."
    # The hub judges the command's risk from its parse (never lower than this): Hermes's list says only "ask".
    # A note on Deny reaches Hermes with the answer ("Reason given by the user"): notes are sent.
    return approvals.fit_question({
        "id": card_id, "type": "approval", "title": clip(f"Hermes wants to {wants}", 500),
        "description": clip(description, 8000), "risk": "medium", "approves": subject,
        "options": approval_options(message), "expiresAt": iso(message["deadline"]), "notes": "sent"})


def question_card(message: dict[str, Any], card_id: str) -> dict[str, Any]:
    """Hermes's clarify question: a choice among its options (2 to 20), else a typed answer."""
    question = message["question"].strip() or "Hermes has a question"
    choices = [c for c in message.get("choices") or [] if c.strip()]
    card: dict[str, Any] = {"id": card_id, "title": clip(f"Hermes asks: {question}", 500),
                            "expiresAt": iso(message["deadline"])}
    if 2 <= len(choices) <= 20:
        card.update(type="choice", options=[{"id": f"c{i}", "label": clip(c, 200), "description": clip(c, 2000)}
                                            for i, c in enumerate(choices, 1)],
                    description=clip(question + "\n\nOr reply in this conversation with an answer of your own.", 8000))
    else:
        listed = "".join(f"\n{i}. {c}" for i, c in enumerate(choices, 1))
        card.update(type="input", format="text", description=clip(question + listed, 8000))
    return card


def _reply_text(card: dict[str, Any], outcome: str, response: dict[str, Any]) -> str:
    if outcome != "answered":
        return ""  # declined: Hermes takes an empty answer as none
    option = str(response.get("optionId") or "")
    choices = card.get("choices") or []
    if option.startswith("c") and option[1:].isdigit() and 1 <= int(option[1:]) <= len(choices):
        return str(choices[int(option[1:]) - 1])
    return str(response.get("text") or "")[:lineproto.MAX_TEXT]


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("the bridge failed: %r", task.exception(), exc_info=task.exception())


# ---- the process ---------------------------------------------------------------------------------------------

async def _pipes() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=lineproto.MAX_LINE_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sys.stdout.buffer)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


async def run_bridge(credential_path: Path) -> int:
    """The whole bridge; its exit code (0: the plugin closed stdin; 2: no hello; 3: do not start me again)."""
    from hub import __version__
    from hub.cli_invocation import program

    stdin, stdout = await _pipes()
    lines = lineproto.LineReader(stdin)
    first = None
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(HELLO_TIMEOUT_S):
            first = await lines.next()
    try:
        hello = lineproto.check(first or b"", "to_bridge")
        if hello["t"] != "hello":
            raise lineproto.BadLine(f"{hello['t']} before hello")
    except lineproto.BadLine as exc:
        log.error("not started by LineUp's Hermes plugin (%s)", exc)
        return 2

    async def fatal(reason: str) -> int:
        log.error("%s", reason)
        with contextlib.suppress(OSError, ConnectionError, lineproto.BadLine):
            stdout.write(lineproto.encode({"t": "fatal", "reason": reason[:4000]}))
            await stdout.drain()
        return FATAL_EXIT

    try:
        credential: Credential = load_credential(credential_path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return await fatal(f"no usable credential at {credential_path} ({type(exc).__name__}): run "
                           f"`{program()} connect hermes --hub … --code …` again")
    version = f"hermes-agent {hello.get('hermes') or '?'}; lineup {__version__}"
    client = AgentClient(credential, runtime="hermes", agent_version=version[:200], capabilities=CAPABILITIES,
                         credential_path=credential_path,
                         pair_command=f"{program()} connect hermes --hub {credential.hub_url} --code NEW-CODE")
    state = State(state_dir(credential_path) / STATE_FILE, credential.agent_id, credential_path.stat().st_mtime)
    client.epoch, client.last_sequence = state.epoch, state.cursor  # resume from what Hermes has taken
    bridge = Bridge(client, state, stdout)
    bridge.hello(hello)
    runner = asyncio.ensure_future(client.run())
    reading = asyncio.ensure_future(_read(lines, bridge))
    ready = asyncio.ensure_future(_ready(client, bridge))
    done, _ = await asyncio.wait({runner, reading}, return_when=asyncio.FIRST_COMPLETED)
    ready.cancel()
    if runner in done:
        reading.cancel()
        failure = runner.exception()
        if isinstance(failure, (AuthError, ReplacedError, PinMismatch)):
            return await fatal(str(failure))
        log.error("the connection to the hub ended: %r", failure)
        return 1
    # stdin ended: Hermes is stopping. What it said last gets a moment to reach the hub.
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(DRAIN_S):
            while len(client.outbox) and not runner.done():
                await asyncio.sleep(0.05)
    await client.close()
    return 0


async def _read(lines: lineproto.LineReader, bridge: Bridge) -> None:
    while (line := await lines.next()) is not None:
        try:
            message = lineproto.check(line, "to_bridge")
        except lineproto.BadLine as exc:
            log.warning("a line from the plugin was dropped: %s", exc)
            continue
        await bridge.line(message)
    if lines.dropped:
        log.warning("%d over-long lines from the plugin were dropped", lines.dropped)


async def _ready(client: AgentClient, bridge: Bridge) -> None:
    await client.wait_connected(timeout_s=365 * 24 * 3600)
    log.info("connected to %s as agent %s", client.credential.hub_url, client.credential.agent_id)
    await bridge.tell({"t": "ready", "agent": client.credential.agent_id})


def main(credential_path: Path) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format=f"%(asctime)s lineup-hermes-bridge[{os.getpid()}] %(levelname)s %(message)s")
    try:
        return asyncio.run(run_bridge(credential_path.expanduser().resolve()))
    except KeyboardInterrupt:
        return 0

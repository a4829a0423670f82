"""The Hermes plugin's own rules (integrations/hermes_plugin/adapter.py), run in Hermes's Python against Hermes's real
classes, without a gateway: answers are given to Hermes oldest first (resolve_gateway_approval resolves a session's
oldest request), a late answer is never given (it could reach the next request), Hermes's own report that it
stopped waiting ends the card, and what the adapter sends is bounded. The gateway around it is tested in
tests/integration/test_hermes_platform.py.

Skipped when Hermes is not installed, except in CI (CI set)."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

from hub.connect import integrations
from tests.support.needs import missing

HERMES_VENV = Path(os.environ.get("LINEUP_TEST_HERMES_VENV") or Path.home() / ".cache" / "lineup-agents" / "hermes")
PLUGIN = integrations.folder(integrations.HERMES_PLUGIN)

SCRIPT = textwrap.dedent(r'''
    import asyncio, importlib.util, sys, threading, time, types
    from pathlib import Path

    plugin_dir = Path(sys.argv[1])
    namespace = types.ModuleType("hermes_plugins_test")  # as Hermes loads a plugin folder: hermes_plugins.<name>
    namespace.__path__ = []
    sys.modules["hermes_plugins_test"] = namespace
    spec = importlib.util.spec_from_file_location("hermes_plugins_test.lineup", plugin_dir / "__init__.py",
                                                  submodule_search_locations=[str(plugin_dir)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["hermes_plugins_test.lineup"] = package
    spec.loader.exec_module(package)

    class Ctx:  # what Hermes's PluginContext does with the two calls the plugin makes
        hooks = {}
        def register_platform(self, name, label, adapter_factory, check_fn, validate_config=None,
                              required_env=None, install_hint="", **more):
            from gateway.platform_registry import platform_registry, PlatformEntry
            platform_registry.register(PlatformEntry(name=name, label=label, adapter_factory=adapter_factory,
                                                     check_fn=check_fn, validate_config=validate_config,
                                                     required_env=required_env or [], install_hint=install_hint,
                                                     source="plugin", **more))
        def register_hook(self, name, callback):
            self.hooks[name] = callback

    ctx = Ctx()
    package.register(ctx)
    adapter_module = sys.modules["hermes_plugins_test.lineup.adapter"]
    lineproto = sys.modules["hermes_plugins_test.lineup.lineproto"]  # the plugin's own copy of the protocol
    from gateway.config import PlatformConfig

    class Link:
        fatal = None
        def __init__(self): self.posted, self.told = [], []
        def post(self, message): self.posted.append(message)
        def tell(self, message): self.told.append(message)

    resolved = []
    def resolve(session, choice, resolve_all=False, reason=None):
        resolved.append((session, choice, reason))
        return 1
    adapter_module.hermes_approval.resolve_gateway_approval = resolve

    async def main():
        adapter = adapter_module.LineUpAdapter(PlatformConfig(enabled=True))
        assert adapter.authorization_is_upstream is True
        adapter.loop = asyncio.get_running_loop()
        link = adapter.link = Link()
        acks = lambda: [(m["id"], m["applied"]) for m in link.told if m["t"] == "ack"]

        first = await adapter.send_exec_approval("conv_1", "rm -rf a", "s1", "recursive delete")
        second = await adapter.send_exec_approval("conv_1", "rm -rf b", "s1", "recursive delete",
                                                  allow_permanent=False)
        a, b = (m for m in link.posted if m["t"] == "approval")
        assert first.success and first.message_id == a["id"] and a["command"] == "rm -rf a"
        assert b["permanent"] is False and a["id"] != b["id"]
        assert abs(a["deadline"] - time.time() - 60) < 2 and a["timeout"] == 60  # approvals.timeout's default

        # The newer card answered first: held until Hermes is done with the older one.
        await adapter.from_bridge({"t": "answer", "id": b["id"], "choice": "once"})
        assert resolved == [] and acks() == []
        await adapter.from_bridge({"t": "answer", "id": a["id"], "choice": "deny", "reason": "no"})
        assert resolved == [("s1", "deny", "no")] and acks() == [(a["id"], True)]
        # Hermes reports the older one done (our answer): now the newer one's answer is given.
        ctx.hooks["post_approval_response"](session_key="s1", choice="deny", surface="gateway")
        await asyncio.sleep(0)  # handed to the loop from Hermes's thread
        assert resolved[-1] == ("s1", "once", None) and acks()[-1] == (b["id"], True)
        adapter.hermes_stopped_waiting("s1", "once")
        assert not [m for m in link.posted if m["t"] == "approval_done"]  # both were ours: nothing to withdraw

        # Hermes stops waiting by itself (its timeout): the card is ended; an answer after that is not given.
        await adapter.send_exec_approval("conv_1", "rm -rf c", "s2")
        c = link.posted[-1]
        threading.Thread(target=ctx.hooks["post_approval_response"],
                         kwargs={"session_key": "s2", "choice": "timeout", "surface": "gateway"}).start()
        for _ in range(100):
            await asyncio.sleep(0.01)
            if link.posted[-1]["t"] == "approval_done":
                break
        assert link.posted[-1] == {"t": "approval_done", "id": c["id"] + ".done", "how": "timeout"}
        count = len(resolved)
        await adapter.from_bridge({"t": "answer", "id": c["id"], "choice": "once"})
        assert len(resolved) == count and acks()[-1] == (c["id"], False)
        await adapter.from_bridge({"t": "answer", "id": c["id"], "choice": "once"})  # told again: same answer
        assert acks()[-1] == (c["id"], False)

        # An answer at Hermes's deadline is not given: Hermes may be done and it would reach the next request.
        await adapter.send_exec_approval("conv_1", "rm -rf d", "s3")
        d = link.posted[-1]
        adapter._approvals[d["id"]].deadline = time.time() + 0.1
        await adapter.from_bridge({"t": "answer", "id": d["id"], "choice": "always"})
        assert len(resolved) == count and acks()[-1] == (d["id"], False)
        # Surfaces that are not the gateway's (the CLI, the smart reviewer) are none of ours.
        ctx.hooks["post_approval_response"](session_key="s3", choice="smart_deny", surface="smart")
        await asyncio.sleep(0)
        assert link.posted[-1] == d

        # Too big for a card: the conversation gets the whole command (Hermes's own prompt shows 200 characters).
        command = "echo ```" + "x" * 70_000
        big = await adapter.send_exec_approval("conv_1", command, "s4", "recursive delete", allow_permanent=False)
        said = link.posted[-1]
        assert big.success and said["t"] == "send" and "\n````\n" + command + "\n````\n" in said["text"]
        assert "/approve session" in said["text"] and "/approve always" not in said["text"]
        assert "s4" not in adapter._waiting  # nothing to withdraw: no card
        # Not a LineUp conversation: refused, and Hermes falls back to its own ways.
        assert not (await adapter.send("not a conversation!", "hi")).success
        assert not (await adapter.send_exec_approval("not a conversation!", "rm -rf x", "s5")).success
        before = len([m for m in link.posted if m["t"] == "send"])
        sent = await adapter.send("conv_1", "y" * (lineproto.MAX_TEXT + 5))
        pieces = [m for m in link.posted if m["t"] == "send"][before:]
        assert sent.success and [len(m["text"]) for m in pieces] == [lineproto.MAX_TEXT, 5]

        # A message from the bridge is handed to Hermes once, also when a restarted bridge gives it again.
        got = []
        async def handle(event): got.append(event)
        adapter.handle_message = handle
        for _ in range(2):
            assert await adapter.from_bridge({"t": "message", "id": "m1", "chat": "conv_1", "text": "hi",
                                              "user": "usr_1"}) is True
        assert len(got) == 1 and got[0].text == "hi" and got[0].source.chat_id == "conv_1"
        assert got[0].source.user_id == "usr_1"

        # LineUp's program gone (moved, uninstalled): the platform stops saying what to do, not a restart loop.
        failed = []
        class Stub:
            boot, hermes = "b", ""
            async def bridge_failed(self, reason): failed.append(reason)
        gone = adapter_module.BridgeLink(["/nonexistent/lineup", "hook", "hermes-bridge"], Stub())
        gone.start()
        await asyncio.wait_for(gone._supervisor, 10)
        assert failed and "run `lineup connect hermes` again" in failed[0] and gone.process is None
        print("OK")

    asyncio.run(main())
''')


def test_the_plugin_gives_answers_in_hermes_order_and_never_late(tmp_path: Path) -> None:
    python = HERMES_VENV / "bin" / "python"
    if not python.exists():
        missing(f"hermes-agent is not installed at {HERMES_VENV}: `bash .ci/run` installs it")
    home = tmp_path / "hermes"
    home.mkdir()
    (home / "config.yaml").write_text("approvals:\n  mode: manual\n")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "HERMES_HOME": str(home),
           "HERMES_DISABLE_LAZY_INSTALLS": "1"}
    # A copy, as `lineup connect hermes` installs one: the plugin keeps its bridge's log beside itself, and a run from
    # the source folder left integrations/hermes_plugin/bridge.log in the checkout (which the executable's build
    # cache hashes, so every full run rebuilt it).
    plugin = tmp_path / "plugins" / "lineup"
    shutil.copytree(PLUGIN, plugin, ignore=shutil.ignore_patterns("__pycache__", "*.log", "lineup.json"))
    done = subprocess.run([str(python), "-c", SCRIPT, str(plugin)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.strip().endswith("OK"), done.stdout + done.stderr
    assert (plugin / "bridge.log").exists() and not (PLUGIN / "bridge.log").exists()  # beside the copy only

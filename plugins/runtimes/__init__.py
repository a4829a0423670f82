"""Built-in agent runtimes: `subprocess` (a command per task) and `acp` (Agent Client Protocol agents)."""

from __future__ import annotations

import importlib.util
from typing import Any

from hub import AgentConfig, RuntimeSpec, acp_runtime, hookimpl


def _create_subprocess(config: AgentConfig, client: Any) -> Any:
    from .subprocess_runtime import SubprocessRuntime

    return SubprocessRuntime(config, client)


@hookimpl
def register_runtimes() -> list[RuntimeSpec]:
    specs = [RuntimeSpec("subprocess", "Runs a command per task (claude -p, codex exec, a script) and streams its "
                                       "output", _create_subprocess)]
    if importlib.util.find_spec("acp") is not None:  # the agent-client-protocol package
        specs.append(RuntimeSpec("acp", "Drives an Agent Client Protocol agent (Zed's protocol: Gemini CLI, "
                                        "claude-code-acp, codex-acp) over stdio", acp_runtime))
    return specs

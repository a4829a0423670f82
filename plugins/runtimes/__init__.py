"""Built-in agent runtimes: `subprocess` (a command per task) and `acp` (Agent Client Protocol agents)."""

from __future__ import annotations

from hub import hookimpl
from hub.runtimes.base import RuntimeSpec


@hookimpl
def register_runtimes() -> list[RuntimeSpec]:
    from plugins.runtimes.subprocess_runtime import SubprocessRuntime

    specs = [RuntimeSpec("subprocess", "Runs a command per task (claude -p, codex exec, a script) and streams its "
                                       "output", SubprocessRuntime)]
    try:
        from plugins.runtimes.acp_runtime import AcpRuntime
    except ImportError:  # the agent-client-protocol package is optional
        return specs
    specs.append(RuntimeSpec("acp", "Drives an Agent Client Protocol agent (Zed's protocol: Gemini CLI, "
                                    "claude-code-acp, codex-acp) over stdio", AcpRuntime))
    return specs

"""The MCP bridge (`lineup mcp`): LineUp as an MCP server over stdio, connected to the hub as an agent."""

# Any MCP client (Claude Code, Codex CLI, Cursor, Gemini CLI, OpenClaw, ...) can then ask the person for a
# decision, report progress and use the hub's tools without adapter code. See docs/mcp.md.

from hub.mcp.run import default_credential_path, log_to_stderr, run_bridge

__all__ = ["default_credential_path", "log_to_stderr", "run_bridge"]

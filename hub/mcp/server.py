"""The MCP server over stdio (the `mcp` package's low-level Server): tools/list and tools/call, nothing else."""

# The low-level API lists the tools afresh on every tools/list (the hub's and apps' tools come and go) and gives
# each call its own request context, through which progress notifications reach the caller while it waits.
# Standard output carries the protocol only; every log line goes to standard error.

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from hub import __version__
from hub.mcp.bridge import Bridge
from hub.mcp.catalog import INSTRUCTIONS


def build_server(bridge: Bridge) -> Server[Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        bridge.note_client(ctx)
        return types.ListToolsResult(tools=await bridge.list_tools())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await bridge.call(ctx, params.name, dict(params.arguments or {}))

    return Server("lineup", version=__version__, title="LineUp", instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(bridge: Bridge) -> None:
    """Serve one MCP client on stdin/stdout until it closes stdin."""
    server = build_server(bridge)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

"""Unauthenticated facts about the hub (/-/health, /.well-known/lineup) and its live figures (/-/metrics)."""

from __future__ import annotations

import os
import statistics
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.cli_invocation import describe as describe_cli
from hub.presets import presets_payload
from hub.protocol import vocabulary as vocabularies
from hub.protocol.envelope import PROTOCOL_VERSION
from hub.protocol.errors import LapError
from hub.web.auth import client_is_loopback, require_user
from hub.web.plugin_routes import ui_modules
from hub.web.port import hub_of


async def health(request: Request) -> JSONResponse:
    hub = hub_of(request)
    return JSONResponse({"status": "ok" if hub.started else "starting", "version": hub.version, "hubId": hub.hub_id,
                         "protocol": PROTOCOL_VERSION}, status_code=200 if hub.started else 503)


async def well_known(request: Request) -> JSONResponse:
    hub = hub_of(request)
    return JSONResponse({"name": hub.name, "hubId": hub.hub_id, "version": hub.version,
                         "protocol": PROTOCOL_VERSION, "ws": {"app": "/ws/app", "agent": "/ws/agent"},
                         "api": "/api", "needsSetup": hub.setup_code is not None,
                         "tlsFingerprint": hub.tls_fingerprint})


def _open_fds() -> int | None:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return None


async def metrics(request: Request) -> JSONResponse:
    """Loop lag, writer batches and commit latency, queue depths, connections (docs/quality.md#the-harness)."""
    if not client_is_loopback(request):
        await require_user(request)
    hub = hub_of(request)
    stats = hub.writer.stats
    commits = sorted(stats.commit_ms)

    def pct(p: float) -> float | None:
        return round(commits[min(len(commits) - 1, int(p * len(commits)))], 3) if commits else None

    sessions = [s for group in (*hub.broker.apps.values(), *hub.broker.agents.values()) for s in group]
    try:
        import resource
        rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except ImportError:  # pragma: no cover - Windows
        rss_kib = None
    if hub.started is False:
        raise LapError("internal", "The hub is not running.")
    return JSONResponse({
        "headSequence": hub.writer.head,
        "loopLagMs": round(hub.loop_lag_ms, 3),
        "writer": {"batches": stats.batches, "commands": stats.commands, "lastBatchSize": stats.last_batch_size,
                   "maxBatchSize": stats.max_batch_size, "queueDepth": hub.writer.queue_depth,
                   "commitMsP50": round(statistics.median(commits), 3) if commits else None,
                   "commitMsP99": pct(0.99)},
        "connections": hub.broker.counts(),
        "outboundQueuedBytes": sum(s.queued_bytes for s in sessions),
        "openStreams": len(hub.streams.open),
        "maxRssKiB": rss_kib,
        "openFds": _open_fds(),
    })


async def plugins(request: Request) -> JSONResponse:
    """Every loaded plugin with its origin, version and hooks, the ones that failed, and the runtimes."""
    if not client_is_loopback(request):
        await require_user(request)
    hub = hub_of(request)
    return JSONResponse({"plugins": hub.plugins.describe(),
                         "failures": [{"name": f.name, "origin": f.origin, "reason": f.reason}
                                      for f in hub.plugins.failures],
                         "runtimes": sorted(hub.runtime_specs), "agents": hub.supervisor.describe(),
                         "tools": sorted(hub.tools.hub_tools), "uiModules": ui_modules(hub),
                         # The command this hub was started with, for the commands the app shows (not on PATH
                         # after README's install). Here, not in a public answer: it names the person's folders.
                         "cli": describe_cli(hub.settings, urlsplit(hub.url).port if hub.url else None)})


async def vocabulary(request: Request) -> JSONResponse:
    """The protocol's vocabularies (task statuses, …), the ones the app finds in its page; public, as the schema."""
    return JSONResponse(vocabularies.for_app())


async def ui_module_list(request: Request) -> JSONResponse:
    """The ES modules the app imports at start (plugins' custom elements); public, like the app itself."""
    return JSONResponse({"modules": ui_modules(hub_of(request))})


async def agent_presets(request: Request) -> JSONResponse:
    """The presets for the app's Agents screen: static, no secrets, public like the app itself."""
    return JSONResponse({"presets": presets_payload()})


routes = [
    Route("/-/plugins.json", plugins),
    Route("/-/ui-modules.json", ui_module_list),
    Route("/-/vocabulary.json", vocabulary),
    Route("/-/health", health),
    Route("/.well-known/lineup", well_known),
    Route("/-/metrics", metrics),
    Route("/-/agent-presets.json", agent_presets),  # `lineup agents add` presets for the Agents screen
]

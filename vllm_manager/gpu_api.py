"""The GPU status API server (``zotero-translate gpu-api``).

Routes:

* ``GET /status`` (Bearer token): the :class:`GPUStatus` JSON (other tools read it: fields are
  only added, never renamed); 503 ``{"errorType": "GPUReadError", "reason": ...}`` when the
  GPU cannot be read.
* ``GET /metrics`` (Bearer token): Prometheus text; ``zt_gpu_up 0`` when the GPU cannot be read.
* ``POST /waiting`` (Bearer token): ``{"client": str, "papers": int, "ttl_s": float}``, a
  heartbeat of a Zotero server whose papers wait for the GPU (issue 16). The sum over clients
  whose last word is younger than its ``ttl_s`` is ``waiting.papers`` of ``/status`` (and
  ``zt_gpu_papers_waiting``), which the dashboard shows to whoever holds the card. At most
  ``WaitingBoard.MAX_CLIENTS`` clients are kept; bodies over 1 KiB are refused.
* ``GET /timeline`` (Bearer token): the samples the dashboard draws, memory per process over the
  last ``ZT_GPU_TIMELINE_HOURS``, and the events (vLLM started, slept, woke, stopped; papers
  waiting), from ``vllm_manager.timeline``; ``?since=<epoch>`` for only the newer ones. The
  API samples the GPU itself every ``ZT_GPU_TIMELINE_INTERVAL_S`` while it runs.
* ``GET /`` the live dashboard (``static/gpu.html``; it asks for the token itself), and
  ``GET /healthz`` (no auth): the API process is up, whatever the GPU says.

Missing or wrong token: 401 ``{"errorType": "Unauthorized", "reason": ...}``. Tokens are
compared in constant time. Without a configured token the server refuses to start unless
``no_auth`` is given explicitly.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import math
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field, ValidationError

from common.errors import ConfigError
from common.http_limits import uvicorn_config
from common.paths import static_dir
from common.settings import Settings
from vllm_manager.gpu import GPUStatusSource, ProbeSource
from vllm_manager.gpu_model import GPUStatus
from vllm_manager.timeline import Timeline

log = logging.getLogger(__name__)

STATIC_DIR = static_dir()
DASHBOARD_FILES = {"gpu.js": "text/javascript", "gpu.css": "text/css"}
NO_TOKEN_MESSAGE = (
    "ZT_GPU_API_TOKEN is not set; refusing to start without auth (pass --no-auth to allow)"
)
# The GPU is re-read at most every few seconds by clients; a failed read is worth a retry soon.
RETRY_AFTER_S = "5"
#: Largest ``POST /waiting`` body read.
WAITING_BODY_BYTES = 1024


class WaitingReport(BaseModel):
    """One ``POST /waiting`` body."""

    client: str = Field(min_length=1, max_length=64)
    papers: int = Field(ge=0, le=10_000)
    ttl_s: float = Field(60.0, ge=1.0, le=3600.0)


@dataclass
class WaitingBoard:
    """Papers waiting for the GPU, per client, each count valid for its TTL (monotonic)."""

    MAX_CLIENTS = 32
    _entries: dict[str, tuple[int, float]] = field(default_factory=dict)

    def report(self, report: WaitingReport, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._prune(now)
        self._entries.pop(report.client, None)
        if report.papers == 0:
            return
        if len(self._entries) >= self.MAX_CLIENTS:  # keep the freshest: drop the oldest word
            del self._entries[min(self._entries, key=lambda c: self._entries[c][1])]
        self._entries[report.client] = (report.papers, now + report.ttl_s)

    def summary(self, now: float | None = None) -> dict[str, int]:
        self._prune(time.monotonic() if now is None else now)
        return {
            "papers": sum(papers for papers, _ in self._entries.values()),
            "clients": len(self._entries),
        }

    def _prune(self, now: float) -> None:
        for client in [c for c, (_, until) in self._entries.items() if until <= now]:
            del self._entries[client]


def create_gpu_app(
    settings: Settings, *, no_auth: bool = False, source: GPUStatusSource | None = None
) -> FastAPI:
    """The ASGI app. ``source`` defaults to :class:`ProbeSource` on this host.

    Raises ``ConfigError`` when no token is configured and ``no_auth`` is false.
    """
    token = settings.gpu_api_token.get_secret_value() if settings.gpu_api_token else ""
    if not token and not no_auth:
        raise ConfigError(NO_TOKEN_MESSAGE)
    status_source: GPUStatusSource = source or ProbeSource(settings)
    board = WaitingBoard()
    timeline = Timeline(
        settings.vllm_keywords, settings.gpu_timeline_hours, settings.gpu_timeline_interval_s
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        sampler = asyncio.create_task(_sample_forever(status_source, board, timeline))
        try:
            yield
        finally:
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler

    app = FastAPI(
        title="GPU status API", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    app.state.settings = settings
    app.state.gpu_source = status_source
    app.state.waiting = board
    app.state.timeline = timeline

    def denied(request: Request) -> Response | None:
        """A 401 response, or None when the request carries the right token (or no_auth)."""
        if not token:
            return None
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return _unauthorized("missing Bearer token")
        if not hmac.compare_digest(given.strip().encode(), token.encode()):
            return _unauthorized("invalid token")
        return None

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        """Liveness, without a token."""
        return {"status": "ok"}

    @app.get("/status", response_model=None)
    async def status(request: Request) -> Response:
        """The GPU now (Bearer token): ``is_idle``, memory, utilisation, temperature and the
        ``processes`` holding it (pid, masked command line, memory, ``on_gpu``, ``sleeping``),
        per GPU too, and the papers ``waiting``; 503 with the reason when the GPU cannot be
        read, never a fake idle."""
        if (refusal := denied(request)) is not None:
            return refusal
        reading = await status_source.read()
        if reading.status is None:
            return JSONResponse(
                {"errorType": "GPUReadError", "reason": reading.reason},
                status_code=503,
                headers={"Retry-After": RETRY_AFTER_S, "Cache-Control": "no-store"},
            )
        body = reading.status.model_dump(mode="json")
        body["waiting"] = board.summary()
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    @app.post("/waiting", response_model=None)
    async def waiting(request: Request) -> Response:
        """A Zotero server says how many papers wait for the card (Bearer token; body
        ``{"client", "papers", "ttl_s"}``, a heartbeat that lapses after its TTL)."""
        if (refusal := denied(request)) is not None:
            return refusal
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > WAITING_BODY_BYTES:
                return JSONResponse(
                    {"errorType": "TooLarge", "reason": f"over {WAITING_BODY_BYTES} bytes"},
                    status_code=413,
                )
        try:
            report = WaitingReport.model_validate(json.loads(raw))
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return JSONResponse({"errorType": "BadRequest", "reason": first}, status_code=400)
        board.report(report)
        return JSONResponse(board.summary())

    @app.get("/timeline", response_model=None)
    async def timeline_route(request: Request) -> Response:
        """The last ``ZT_GPU_TIMELINE_HOURS`` of samples (Bearer token): memory per process by
        name and the events seen (vLLM started, slept, woke, stopped; papers waiting);
        ``?since=<epoch>`` returns only newer ones."""
        if (refusal := denied(request)) is not None:
            return refusal
        raw = request.query_params.get("since")
        try:
            since = None if raw is None else float(raw)
        except ValueError:
            since = math.nan
        if since is not None and not math.isfinite(since):
            reason = "since must be a time in seconds since the epoch"
            return JSONResponse({"errorType": "BadRequest", "reason": reason}, status_code=400)
        return JSONResponse(timeline.since(since), headers={"Cache-Control": "no-store"})

    @app.get("/metrics", response_model=None)
    async def metrics(request: Request) -> Response:
        """Prometheus text of the GPU, its processes, the papers waiting and the timeline's
        events (Bearer token)."""
        if (refusal := denied(request)) is not None:
            return refusal
        reading = await status_source.read()
        waiting_papers = board.summary()["papers"]
        return PlainTextResponse(
            prometheus_text(reading.status)
            + "# HELP zt_gpu_papers_waiting Papers of zotero-translate waiting for the GPU\n"
            + "# TYPE zt_gpu_papers_waiting gauge\n"
            + f"zt_gpu_papers_waiting {waiting_papers}\n"
            + timeline_metrics(timeline),
            media_type="text/plain; version=0.0.4; charset=utf-8",
        )

    @app.get("/", response_model=None)
    async def dashboard() -> Response:
        """The live dashboard (asks for the token once, or takes it from ``#token=``)."""
        return _static("gpu.html", "text/html")

    @app.get("/static/{name}", response_model=None)
    async def dashboard_asset(name: str) -> Response:
        """The dashboard's script and style sheet."""
        if name not in DASHBOARD_FILES:
            return JSONResponse({"errorType": "NotFound", "reason": name}, status_code=404)
        return _static(name, DASHBOARD_FILES[name])

    return app


async def _sample_forever(source: GPUStatusSource, board: WaitingBoard, timeline: Timeline) -> None:
    """Read the GPU every ``timeline.interval_s`` into the timeline, until cancelled. It waits
    first: a reading shares the probe in flight with ``/status`` callers (``ProbeSource``), and
    one started as the API starts would answer its first callers from before they asked."""
    while True:
        await asyncio.sleep(timeline.interval_s)
        reading = await source.read()
        timeline.observe(reading.status, board.summary()["papers"])


def timeline_metrics(timeline: Timeline) -> str:
    """The timeline's series as Prometheus text: the latest memory per process and the events
    seen so far (Prometheus keeps the history itself)."""
    lines = [
        "# HELP zt_gpu_process_memory_mib GPU memory per process at the last sample, MiB",
        "# TYPE zt_gpu_process_memory_mib gauge",
    ]
    latest = timeline.samples[-1] if timeline.samples else None
    for process in latest.processes if latest is not None else ():
        pid = "" if process.pid is None else str(process.pid)
        labels = f'name="{_escape_label(process.name)}",kind="{process.kind}",pid="{pid}"'
        lines.append(f"zt_gpu_process_memory_mib{{{labels}}} {process.memory_mib}")
    lines += [
        "# HELP zt_gpu_vllm_events_total vLLM and waiting events the GPU API saw since it started",
        "# TYPE zt_gpu_vllm_events_total counter",
    ]
    lines += [
        f'zt_gpu_vllm_events_total{{event="{kind.value}"}} {count}'
        for kind, count in timeline.counts.items()
    ]
    return "\n".join(lines) + "\n"


def _unauthorized(reason: str) -> JSONResponse:
    return JSONResponse(
        {"errorType": "Unauthorized", "reason": reason},
        status_code=401,
        headers={"WWW-Authenticate": "Bearer"},
    )


def _static(name: str, media_type: str) -> Response:
    return FileResponse(
        STATIC_DIR / name, media_type=media_type, headers={"Cache-Control": "no-cache"}
    )


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def prometheus_text(status: GPUStatus | None) -> str:
    """Prometheus exposition text for a status; ``None`` gives just ``zt_gpu_up 0``."""
    lines: list[str] = []

    def family(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        lines.extend(f"{name}{labels} {value:g}" for labels, value in samples)

    family("zt_gpu_up", "gauge", "1 if the GPU could be read", [("", 0 if status is None else 1)])
    if status is None:
        return "\n".join(lines) + "\n"
    per_gpu = [
        (
            f'{{gpu="{g.index}",uuid="{_escape_label(g.uuid)}",name="{_escape_label(g.name)}"}}',
            g,
        )
        for g in status.gpus
    ]
    family(
        "zt_gpu_memory_used_mib",
        "gauge",
        "GPU memory in use, MiB",
        [(lb, g.memory_used_mib) for lb, g in per_gpu],
    )
    family(
        "zt_gpu_memory_total_mib",
        "gauge",
        "GPU memory size, MiB",
        [(lb, g.memory_total_mib) for lb, g in per_gpu],
    )
    family(
        "zt_gpu_utilization_pct",
        "gauge",
        "GPU utilisation, percent",
        [(lb, g.utilization_pct) for lb, g in per_gpu],
    )
    family(
        "zt_gpu_temperature_c",
        "gauge",
        "GPU temperature, degrees Celsius",
        [(lb, g.temperature_c) for lb, g in per_gpu],
    )
    family(
        "zt_gpu_processes",
        "gauge",
        "Compute processes on the GPU",
        [(lb, len(g.processes)) for lb, g in per_gpu],
    )
    family(
        "zt_gpu_idle",
        "gauge",
        "1 if this GPU has no process and memory use below the idle threshold",
        [(lb, int(g.is_idle)) for lb, g in per_gpu],
    )
    family(
        "zt_gpu_watched_processes",
        "gauge",
        "Watched GPU services running but not (yet) on a GPU",
        [("", sum(1 for p in status.processes if not p.on_gpu))],
    )
    family(
        "zt_gpu_memory_free_mib",
        "gauge",
        "GPU memory free, MiB (the memory_free_mib of /status)",
        [("", status.memory_free_mib)],
    )
    family(
        "zt_gpu_vllm_sleeping",
        "gauge",
        "vLLM processes asleep (sleep mode); the memory they still hold stays on the card",
        [("", sum(1 for p in status.processes if p.sleeping))],
    )
    family(
        "zt_gpu_host_idle",
        "gauge",
        "1 if the whole host is idle (the is_idle of /status)",
        [("", int(status.is_idle))],
    )
    return "\n".join(lines) + "\n"


def serve_gpu_api(settings: Settings, host: str, port: int, *, no_auth: bool = False) -> None:
    """Run the API with uvicorn until interrupted. Raises ``ConfigError`` (see above)."""
    import uvicorn

    app = create_gpu_app(settings, no_auth=no_auth)
    if no_auth:
        log.warning("GPU status API running WITHOUT authentication on %s:%d", host, port)
    uvicorn.Server(gpu_api_config(app, settings, host, port)).run()


def gpu_api_config(app: Any, settings: Settings, host: str, port: int, **extra: Any) -> Any:
    """The uvicorn ``Config`` the API runs with: the connection limits of the Zotero-facing
    server (``common.http_limits``; a stalled request head is cut off after
    ``ZT_REQUEST_READ_TIMEOUT_S``); ``extra`` overrides (log level)."""
    return uvicorn_config(app, settings.request_read_timeout_s, host, port, **extra)

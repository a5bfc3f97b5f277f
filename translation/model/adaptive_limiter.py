"""The adaptive limiter: a limiter whose limit follows vLLM's load, read from its ``/metrics``
(``translation.model.metrics``) and fed to the control law
(``translation.model.concurrency_control``) about once a second while requests are in flight.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from translation.model.concurrency_control import (
    ConcurrencyControl,
    ControlConfig,
    Decision,
    Observation,
    Reason,
    Signals,
)
from translation.model.fair_slots import FairSlots
from translation.model.metrics import VLLMLoad, parse_load

if TYPE_CHECKING:
    from common.settings import Settings

log = logging.getLogger(__name__)

#: Timeout of one /metrics request.
METRICS_TIMEOUT_S = 2.0
#: Decisions kept for the status page and the bench.
HISTORY = 512


@dataclass(frozen=True)
class LimitChange:
    """One look: when (``time.monotonic()``), what it saw and what it decided."""

    at: float
    decision: Decision
    load: VLLMLoad | None
    in_flight: int = 0


class AdaptiveLimiter(FairSlots):
    """A limiter whose limit follows vLLM's load (its control law:
    ``translation.model.concurrency_control``).

    ``metrics_url`` is vLLM's ``/metrics`` (None: latency only). ``http_client`` is an optional
    shared ``httpx.AsyncClient``; the caller keeps owning it. While requests are in flight or
    waiting, a background task looks at the server and adjusts the limit; it ends by itself
    when the work does, and ``aclose()`` ends it at once.
    """

    def __init__(
        self,
        control: ControlConfig,
        *,
        metrics_url: str | None,
        http_client: httpx.AsyncClient | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self._control = ConcurrencyControl(control)
        self.metrics_url = metrics_url
        self._http = http_client
        self._owns_http = http_client is None
        self._headers = headers or {}
        self._demand = False
        self._latencies: list[float] = []
        self._started: dict[object, float] = {}  # start time of each request in flight
        self._failures = 0
        self._watcher: asyncio.Task[None] | None = None
        self._signals: Signals | None = None
        self.history: deque[LimitChange] = deque(maxlen=HISTORY)
        self.last: LimitChange = LimitChange(
            time.monotonic(),
            Decision(self._control.limit, Reason.START, Signals.METRICS, control.settle_s),
            None,
        )

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        http_client: httpx.AsyncClient | None = None,
        *,
        poll_s: float = ControlConfig.poll_s,
        settle_s: float = ControlConfig.settle_s,
        launch_batch: int | None = None,
    ) -> AdaptiveLimiter:
        """The limiter for ``settings.llm_base_url`` (the bench scales ``poll_s`` and
        ``settle_s`` with its fake GPU's clock). ``launch_batch``: the batch size of the
        command our manager starts vLLM with (``VLLMManager.launch_batch``), if it does."""
        config = ControlConfig(
            minimum=settings.concurrency_min,
            maximum=settings.concurrency_max,
            initial=settings.concurrency_min,
            poll_s=poll_s,
            settle_s=settle_s,
            reserve=settings.concurrency_reserve,
            launch_batch=launch_batch,
        )
        headers = {}
        if settings.llm_api_key is not None:
            headers["Authorization"] = f"Bearer {settings.llm_api_key.get_secret_value()}"
        return cls(
            config,
            metrics_url=metrics_url(settings.llm_base_url),
            http_client=http_client,
            headers=headers,
        )

    @property
    def limit(self) -> int:
        return self._control.limit

    @property
    def config(self) -> ControlConfig:
        return self._control.config

    def step_s(self) -> float | None:
        """vLLM's engine step from its token counters (``ConcurrencyControl.step_s``): it times
        a selection's hold on the papers' requests (``translation.model.fair_slots``)."""
        return self._control.step_s

    @asynccontextmanager
    async def slot(self, owner: str = "") -> AsyncIterator[None]:
        self._ensure_watcher()
        await self._acquire(owner)
        token = object()
        started = self._started[token] = time.monotonic()
        ok = False
        try:
            yield
            ok = True
        except asyncio.CancelledError:
            raise
        except Exception:
            self._failures += 1
            raise
        finally:
            if ok:
                self._latencies.append(time.monotonic() - started)
            del self._started[token]
            self._release(owner)

    async def aclose(self) -> None:
        self._cancel_hold()
        watcher, self._watcher = self._watcher, None
        if watcher is not None and not watcher.done():
            watcher.cancel()
            try:
                await watcher
            except asyncio.CancelledError:
                pass
        if self._owns_http and self._http is not None:
            await self._http.aclose()
            self._http = None

    def __repr__(self) -> str:
        return (
            f"AdaptiveLimiter(limit={self.limit}, in_flight={self._in_flight}, "
            f"waiting={self._queued}, last={self.last.decision.reason.value})"
        )

    # --- slots -------------------------------------------------------------------------------

    def _on_wait(self) -> None:
        self._demand = True

    def _queued_for_room(self) -> bool:
        """Requests wait here for the limit, not only for a selection's hold (with room free
        and a hold running they wait it out: no demand for a higher limit)."""
        held = self._holding() and self._in_flight < self.limit
        return self._queued > 0 and not held

    # --- watching the server -----------------------------------------------------------------

    def _busy(self) -> bool:
        return self._in_flight > 0 or self.pending() > 0

    def _ensure_watcher(self) -> None:
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.create_task(self._watch(), name="adaptive-limiter")

    async def _watch(self) -> None:
        delay = self.last.decision.next_look_s
        while True:
            await asyncio.sleep(delay)
            if not self._busy():
                return  # no await between this check and the end: a new slot() starts anew
            try:
                delay = await self._look()
            except Exception:  # a bug here must never stall the translations
                log.exception("adaptive limiter: a look at the server failed")
                delay = self.config.poll_s

    async def _look(self) -> float:
        load = await self._read_load()
        now = time.monotonic()
        seen = Observation(
            in_flight=self._in_flight,
            demand=self._demand or self.waiting_above() > 0 or self._queued_for_room(),
            load=load,
            latencies=tuple(self._latencies),
            failures=self._failures,
            at=now,
            ages_s=sum(now - started for started in self._started.values()),
        )
        self._demand, self._latencies, self._failures = False, [], 0
        before = self.limit
        decision = self._control.decide(seen)
        self.last = LimitChange(now, decision, load, seen.in_flight)
        self.history.append(self.last)
        if decision.signals is not self._signals:
            self._signals = decision.signals
            if decision.signals is Signals.LATENCY:
                log.warning(
                    "adaptive limiter: no vLLM metrics at %s; following latency only",
                    self.metrics_url,
                )
            else:
                log.info("adaptive limiter: following vLLM metrics at %s", self.metrics_url)
        if decision.limit != before:
            log.debug("concurrency %d -> %d (%s)", before, decision.limit, decision.reason)
            self._grant()
        return decision.next_look_s

    async def _read_load(self) -> VLLMLoad | None:
        if self.metrics_url is None:
            return None
        if self._http is None:
            self._http = httpx.AsyncClient(timeout=METRICS_TIMEOUT_S)
        try:
            response = await self._http.get(
                self.metrics_url, headers=self._headers, timeout=METRICS_TIMEOUT_S
            )
        except httpx.HTTPError:
            return None
        if response.status_code != 200:
            return None
        return parse_load(response.text)


def metrics_url(llm_base_url: str) -> str:
    """vLLM's ``/metrics`` for an OpenAI base URL (``http://h:8000/v1`` -> ``http://h:8000``)."""
    root = llm_base_url.rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    return f"{root}/metrics"

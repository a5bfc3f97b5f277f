"""Concurrency control for LLM requests.

The pipeline wraps every LLM request in ``async with limiter.slot(owner):``. A limiter decides how
many may be in flight at once. ``FixedLimiter`` holds a constant limit. ``AdaptiveLimiter``
(``ZT_CONCURRENCY_MODE=adaptive``) moves its limit with what vLLM reports on ``/metrics`` so
that vLLM's batch stays full while its waiting queue stays near zero and nothing is preempted;
``ConcurrencyControl`` is its control law, pure logic that the tests feed samples. One limiter
serves every job of the process (the Translator owns it), so the limit is shared; the slots are
shared fairly between the jobs (``slot(owner)``), in the order
``translation.model.fair_slots`` gives.

The control law, one look at a time (every ``poll_s``, about a second; ``settle_s`` after a
change, since its effect shows within a few engine steps):

1. requests failed since the last look: cut the limit to ``cut`` (3/4) of itself;
2. ``vllm:num_preemptions_total`` rose: KV thrashing; cut to ``cut`` of what is in flight, once
   per episode (while in-flight is still above the last cut, it only waits for it to drain);
3. more than ``waiting_target`` (2) requests wait in vLLM: vLLM's slots or KV are full; shrink
   to what is in flight minus the excess (counting from in-flight, not from the limit, means a
   queue that is still draining is never subtracted twice);
4. the KV usage AHEAD at or above ``kv_max`` (0.92): shrink in proportion, towards
   ``kv_high``, by at most ``cut`` per look. vLLM admits a request when its prompt fits and
   its answer then grows into the cache, preempting when it runs out; so the law looks at the
   usage the running requests will reach (``ConcurrencyControl.kv_ahead``: from the token
   counters, the cache size in ``vllm:cache_config_info`` and the ages of our requests), not
   only at the usage now. Without those figures, the usage now;
5. the KV usage ahead at or above ``kv_high`` (0.8): hold;
6. nobody waited for a slot since the last look: the limit does not bind; hold;
7. 1..``waiting_target`` wait in vLLM: the batch is full with a request ready for each slot
   that frees; hold;
8. fewer run in vLLM than we have in flight: answers are on their way back or requests on their
   way in, and an empty queue may only mean a slot just freed; hold;
9. otherwise vLLM has room: grow by ``step`` (2), and by less where the KV usage per running
   request says fewer fit below ``kv_high``. A small step bounds the overshoot when vLLM's
   ``--max-num-seqs`` is reached: nothing on /metrics tells that number in advance.

Without /metrics (404, not vLLM, unreachable) the law falls back to latency alone: the median
latency of the requests finished since the last look against the lowest such median seen (a
baseline that forgets slowly); above ``latency_tolerance`` (2x) the limit is cut in proportion,
else it grows by one while the limit binds. The limit always stays within
``[minimum, maximum]`` (``ZT_CONCURRENCY_MIN``/``ZT_CONCURRENCY_MAX``).

Shrinking never waits for requests in flight: a new slot is granted once fewer than the limit
hold one. A waiter that is cancelled gives up its place (or its slot, if it had just been
granted one); a body that raises or is cancelled releases its slot.
"""

from __future__ import annotations

import asyncio
import logging
import math
import statistics
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import httpx

from common.errors import ConfigError
from common.settings import ConcurrencyMode
from translation.model.fair_slots import FairSlots
from translation.model.metrics import VLLMLoad, parse_load

if TYPE_CHECKING:
    from common.settings import Settings

log = logging.getLogger(__name__)


@runtime_checkable
class Limiter(Protocol):
    """Bounds the LLM requests in flight across every job of the process."""

    @property
    def limit(self) -> int:
        """The most requests allowed in flight right now."""
        ...

    @property
    def in_flight(self) -> int:
        """Requests holding a slot right now."""
        ...

    def slot(self, owner: str = "") -> AbstractAsyncContextManager[None]:
        """Wait for a free slot and hold it for the body of the ``async with``. ``owner`` (the
        job id) is whom the slot is shared fairly between; see ``translation.model.fair_slots``."""
        ...

    def waiting(self, owner: str | None = None) -> int:
        """Requests waiting for a slot: ``owner``'s, or everyone's (None)."""
        ...

    def held(self, owner: str | None = None) -> int:
        """Slots held now: by ``owner``, or by everyone (None)."""
        ...

    async def aclose(self) -> None:
        """Stop background work and release what the limiter opened."""
        ...


class FixedLimiter(FairSlots):
    """Never more than ``limit`` requests in flight; waiters are served in the fair order of
    ``translation.model.fair_slots`` (first come, first served inside one owner).

    Records ``peak_in_flight`` (the most ever held at once) for tests and the progress page.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        super().__init__()
        self._limit = limit

    @property
    def limit(self) -> int:
        return self._limit

    @asynccontextmanager
    async def slot(self, owner: str = "") -> AsyncIterator[None]:
        await self._acquire(owner)
        try:
            yield
        finally:
            self._release(owner)

    async def aclose(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"FixedLimiter(limit={self._limit}, in_flight={self._in_flight})"


# --- the control law (pure) ------------------------------------------------------------------


class Reason(StrEnum):
    """Why the last look set the limit where it is."""

    START = "start"
    FAILURES = "failures"  # requests failed
    PREEMPTION = "preemption"  # vLLM preempted requests (KV thrashing)
    QUEUE = "queue"  # more than waiting_target wait inside vLLM
    KV_FULL = "kv_full"  # KV usage at or above kv_max
    KV_HIGH = "kv_high"  # KV usage at or above kv_high: no growth
    UNUSED = "unused"  # the limit did not bind
    FULL = "full"  # vLLM's batch is full and a few requests wait: the goal
    TURNOVER = "turnover"  # some of ours are not running (in transit): no evidence of room
    GROW = "grow"  # vLLM has room
    AT_MAX = "at_max"  # would grow, but the limit is at its maximum
    SLOW = "slow"  # latency only: latency far above its baseline
    STEADY = "steady"  # latency only: nothing to act on


class Signals(StrEnum):
    """What a decision was based on."""

    METRICS = "metrics"  # vLLM's /metrics
    LATENCY = "latency"  # observed latency only (no /metrics)


@dataclass(frozen=True)
class ControlConfig:
    minimum: int
    maximum: int
    initial: int
    waiting_target: int = 2
    step: int = 2
    kv_high: float = 0.80
    kv_max: float = 0.92
    cut: float = 0.75
    latency_tolerance: float = 2.0
    poll_s: float = 1.0
    settle_s: float = 0.1

    def __post_init__(self) -> None:
        if not 1 <= self.minimum <= self.maximum:
            raise ValueError(
                f"need 1 <= minimum <= maximum, got minimum={self.minimum}, maximum={self.maximum}"
            )
        if not 0 < self.kv_high <= self.kv_max <= 1:
            raise ValueError("need 0 < kv_high <= kv_max <= 1")
        if not 0 < self.cut < 1 or self.step < 1 or self.waiting_target < 0:
            raise ValueError("need 0 < cut < 1, step >= 1 and waiting_target >= 0")
        if self.poll_s <= 0 or self.settle_s <= 0 or self.latency_tolerance <= 1:
            raise ValueError("need poll_s > 0, settle_s > 0 and latency_tolerance > 1")

    def clamp(self, limit: int) -> int:
        return max(self.minimum, min(self.maximum, limit))


@dataclass(frozen=True)
class Observation:
    """What the limiter saw since its last look."""

    in_flight: int  # our requests holding a slot now
    demand: bool  # a request waited for a slot since the last look (the limit binds)
    load: VLLMLoad | None  # None: /metrics unavailable
    latencies: tuple[float, ...] = ()  # seconds, of requests that succeeded since the last look
    failures: int = 0  # requests whose body raised since the last look
    at: float = 0.0  # when (monotonic seconds): for the token rates
    ages_s: float = 0.0  # the ages of our requests in flight, added up (seconds)


@dataclass(frozen=True)
class Decision:
    limit: int
    reason: Reason
    signals: Signals
    next_look_s: float
    kv_ahead: float | None = None  # the KV usage expected once the answers in flight have grown


#: Per look, the latency baseline may rise by this factor (so it follows a slower server).
_BASELINE_FORGET = 1.02
#: Answer tokens per prompt token assumed until vLLM's counters show more: a translation is
#: about as long as its source, and the prompt adds an instruction on top.
ANSWER_RATIO_PRIOR = 1.0


class ConcurrencyControl:
    """The adaptive limit's control law; see the module docstring. No I/O, no clock."""

    def __init__(self, config: ControlConfig) -> None:
        self.config = config
        self.limit = config.clamp(config.initial)
        self._preemptions: int | None = None
        self._baseline: float | None = None
        self._previous: tuple[float, VLLMLoad] | None = None
        self._first: VLLMLoad | None = None  # counters when this server was first seen
        self._rate: float | None = None  # answer tokens per second of one running request

    def decide(self, seen: Observation) -> Decision:
        """Take one observation; return (and adopt) the new limit."""
        self._learn_latency(seen.latencies)
        load = seen.load
        if load is None or load.running is None or load.waiting is None:
            self._preemptions = self._previous = self._first = self._rate = None
            return self._adopt(*self._by_latency(seen), Signals.LATENCY, None)
        preempted = self._preempted(load.preemptions_total)
        self._learn_rates(seen.at, load)
        ahead = self.kv_ahead(seen, load)
        return self._adopt(*self._by_metrics(seen, load, preempted, ahead), Signals.METRICS, ahead)

    def kv_ahead(self, seen: Observation, load: VLLMLoad) -> float | None:
        """The KV usage once the running answers have grown (if none finished meanwhile).

        vLLM admits a request when its PROMPT fits; its answer grows into the cache later, so
        the usage now understates what the running requests will need, most of all when they
        all started together. Estimate: our requests made about ``rate * ages`` tokens so far;
        the rest of the cache in use holds prompts; each prompt token brings ``ratio`` answer
        tokens (the counters' ratio, at least ANSWER_RATIO_PRIOR). Without the cache size or
        the counters, the usage now.
        """
        usage, size = load.kv_usage, load.kv_capacity_tokens
        if usage is None or not size or self._rate is None:
            return usage
        held = usage * size
        made = min(held, self._rate * seen.ages_s)
        ratio = self._answer_ratio(load, held - made, made, size)
        return usage + max(0.0, ratio * (held - made) - made) / size

    def _by_metrics(
        self, seen: Observation, load: VLLMLoad, preempted: bool, ahead: float | None
    ) -> tuple[int, Reason]:
        c, limit = self.config, self.limit
        assert load.running is not None and load.waiting is not None
        if seen.failures:
            return math.floor(limit * c.cut), Reason.FAILURES
        if preempted:
            if seen.in_flight > limit:
                return limit, Reason.PREEMPTION  # the last cut is still draining: wait for it
            return math.floor(min(limit, seen.in_flight) * c.cut), Reason.PREEMPTION
        if load.waiting > c.waiting_target:
            excess = load.waiting - c.waiting_target
            return min(limit, seen.in_flight - excess), Reason.QUEUE
        if ahead is not None and ahead >= c.kv_max:
            # The limit only gates new admissions and the next look comes soon: a bounded cut.
            fit = max(seen.in_flight * c.kv_high / ahead, seen.in_flight * c.cut)
            return min(limit, math.floor(fit)), Reason.KV_FULL
        if ahead is not None and ahead >= c.kv_high:
            return limit, Reason.KV_HIGH
        if not seen.demand:
            return limit, Reason.UNUSED
        if load.waiting > 0:
            return limit, Reason.FULL
        if seen.in_flight > load.running:
            # Some of ours are not running: answers on their way back or requests on their
            # way in. vLLM's queue is empty only between a turnover and the next step.
            return limit, Reason.TURNOVER
        if limit >= c.maximum:
            return limit, Reason.AT_MAX
        step = c.step
        if ahead is not None and ahead > 0 and load.running > 0:
            fit = math.floor((c.kv_high - ahead) / (ahead / load.running))
            step = max(1, min(step, fit))
        return limit + step, Reason.GROW

    def _by_latency(self, seen: Observation) -> tuple[int, Reason]:
        c, limit = self.config, self.limit
        if seen.failures:
            return math.floor(limit * c.cut), Reason.FAILURES
        if seen.latencies and self._baseline:
            ratio = statistics.median(seen.latencies) / self._baseline
            if ratio > c.latency_tolerance:
                factor = max(0.5, c.latency_tolerance / ratio)
                return math.floor(limit * factor), Reason.SLOW
        if not seen.demand:
            return limit, Reason.UNUSED
        if not seen.latencies:
            return limit, Reason.STEADY
        if limit >= c.maximum:
            return limit, Reason.AT_MAX
        return limit + 1, Reason.GROW

    def _adopt(self, limit: int, reason: Reason, signals: Signals, ahead: float | None) -> Decision:
        limit = self.config.clamp(limit)
        changed = limit != self.limit
        self.limit = limit
        # After a change, or while growth waits for requests in transit, look again soon.
        soon = changed or reason is Reason.TURNOVER
        look = self.config.settle_s if soon else self.config.poll_s
        return Decision(limit, reason, signals, look, ahead)

    def _preempted(self, total: int | None) -> bool:
        previous, self._preemptions = self._preemptions, total
        # The first reading is a baseline; a smaller one is a restarted vLLM: a new baseline.
        return total is not None and previous is not None and total > previous

    def _learn_rates(self, at: float, load: VLLMLoad) -> None:
        previous, self._previous = self._previous, (at, load)
        first = self._first
        if (
            first is None
            or (load.generation_tokens_total or 0) < (first.generation_tokens_total or 0)
            or (load.prompt_tokens_total or 0) < (first.prompt_tokens_total or 0)
        ):
            self._first, self._rate = load, None  # first look, or a restarted vLLM
            return
        if previous is None or at <= previous[0]:
            return
        before, now = previous[1].generation_tokens_total, load.generation_tokens_total
        running = ((previous[1].running or 0) + (load.running or 0)) / 2
        if before is None or now is None or now < before or running <= 0:
            return
        sample = (now - before) / (at - previous[0]) / running
        # Smoothed over about poll_s: a few engine steps between two quick looks are noisy.
        weight = min(1.0, (at - previous[0]) / self.config.poll_s)
        self._rate = sample if self._rate is None else self._rate + weight * (sample - self._rate)

    def _answer_ratio(
        self, load: VLLMLoad, running_prompts: float, made: float, size: int
    ) -> float:
        """Answer tokens per prompt token of the requests FINISHED since this server was first
        seen (the counters less what is still running), drawn towards ANSWER_RATIO_PRIOR until
        half a cache's worth of prompts has finished."""
        first = self._first
        if first is None:
            return ANSWER_RATIO_PRIOR
        prompts = (load.prompt_tokens_total or 0) - (first.prompt_tokens_total or 0)
        answers = (load.generation_tokens_total or 0) - (first.generation_tokens_total or 0)
        finished_prompts = max(0.0, prompts - running_prompts)
        finished_answers = max(0.0, answers - made)
        weight = size / 2
        return (finished_answers + ANSWER_RATIO_PRIOR * weight) / (finished_prompts + weight)

    def _learn_latency(self, latencies: tuple[float, ...]) -> None:
        if self._baseline is not None:
            self._baseline *= _BASELINE_FORGET
        if latencies:
            median = statistics.median(latencies)
            if median > 0:
                self._baseline = min(self._baseline or median, median)


# --- the adaptive limiter (I/O) --------------------------------------------------------------

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
    """A limiter whose limit follows vLLM's load (see the module docstring).

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
    ) -> AdaptiveLimiter:
        """The limiter for ``settings.llm_base_url`` (the bench scales ``poll_s`` and
        ``settle_s`` with its fake GPU's clock)."""
        config = ControlConfig(
            minimum=settings.concurrency_min,
            maximum=settings.concurrency_max,
            initial=settings.concurrency_min,
            poll_s=poll_s,
            settle_s=settle_s,
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

    # --- watching the server -----------------------------------------------------------------

    def _busy(self) -> bool:
        return self._in_flight > 0 or self._queued > 0

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
            demand=self._demand or self._queued > 0,
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


def make_limiter(settings: Settings, http_client: httpx.AsyncClient | None = None) -> Limiter:
    """The limiter ``ZT_CONCURRENCY_MODE`` asks for.

    fixed: ``ZT_CONCURRENCY`` at all times. adaptive: starts at ``ZT_CONCURRENCY_MIN`` (a
    higher start would queue inside a small vLLM at once) and moves up to
    ``ZT_CONCURRENCY_MAX``; the limit it learned carries over to the next job. Raises
    ``ConfigError`` when the bounds are inverted.
    """
    if settings.concurrency_mode is ConcurrencyMode.FIXED:
        return FixedLimiter(settings.concurrency)
    if settings.concurrency_min > settings.concurrency_max:
        raise ConfigError(
            f"ZT_CONCURRENCY_MIN ({settings.concurrency_min}) is above ZT_CONCURRENCY_MAX "
            f"({settings.concurrency_max})"
        )
    return AdaptiveLimiter.from_settings(settings, http_client)

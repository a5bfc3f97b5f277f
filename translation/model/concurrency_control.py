"""The adaptive limit's control law: pure logic, no I/O and no clock, which the tests feed
samples; ``translation.model.adaptive_limiter`` runs it against a live server.

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

Once vLLM's batch size is known, the limit stays ``reserve`` (1) below it (``Reason.RESERVE``):
vLLM never preempts a running request to make a batch slot for a waiting one, whatever its
priority, so a reader's selection sent while a paper fills every slot would wait for the first
of the paper's long answers to end (seconds). The batch size is learned, not configured: the
number running while requests wait in vLLM and its cache is below ``kv_high`` (so the slots
bind, not the cache), seen alike at two looks in a row (a burst held back by the step's token
budget for a step or two is not the batch); the second look comes soon after the first. Until
then the batch size our own launch command names stands for it (``launch_batch``: the
``--max-num-seqs`` of ``ZT_VLLM_COMMAND``, where our manager starts vLLM), else ``maximum`` (the
launch profiles set ``ZT_CONCURRENCY_MAX`` to their ``--max-num-seqs``). So a paper started on
such a vLLM never fills its batch, not even in the second or so before the batch is seen (a
limit that overshoots it keeps every slot busy until the paper's first answers end). A vLLM
started by someone else with neither named is learned by overshooting its batch once. The
cost: one slot of the batch, about 1.5 % of a 32-slot batch's tokens per second (its steps are
a little shorter too), or one slot of ``maximum`` where it is set below the batch.

Without /metrics (404, not vLLM, unreachable) the law falls back to latency alone: the median
latency of the requests finished since the last look against the lowest such median seen (a
baseline that forgets slowly); above ``latency_tolerance`` (2x) the limit is cut in proportion,
else it grows by one while the limit binds. The limit always stays within
``[minimum, maximum]`` (``ZT_CONCURRENCY_MIN``/``ZT_CONCURRENCY_MAX``).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from enum import StrEnum

from translation.model.metrics import VLLMLoad


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
    RESERVE = "reserve"  # vLLM's batch less the slots kept free for a reader's selection
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
    reserve: int = 0  # vLLM batch slots kept free for a reader's selection (module doc)
    #: The ``--max-num-seqs`` of the command our manager starts vLLM with (None: not ours, or
    #: not named): the batch size until one is seen (module doc).
    launch_batch: int | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.minimum <= self.maximum:
            raise ValueError(
                f"need 1 <= minimum <= maximum, got minimum={self.minimum}, maximum={self.maximum}"
            )
        if not 0 < self.kv_high <= self.kv_max <= 1:
            raise ValueError("need 0 < kv_high <= kv_max <= 1")
        if self.launch_batch is not None and self.launch_batch < 1:
            raise ValueError(f"need launch_batch >= 1, got {self.launch_batch}")
        if not 0 < self.cut < 1 or self.step < 1 or self.waiting_target < 0 or self.reserve < 0:
            raise ValueError("need 0 < cut < 1, step >= 1, waiting_target >= 0, reserve >= 0")
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
#: The longest engine step ``ConcurrencyControl.step_s`` reports (seconds): a stalled server's
#: counters stop, and the step they imply would make a selection's hold on the papers'
#: requests (``fair_slots``) endless. A full batch's decode step on a consumer card is tens of
#: milliseconds.
STEP_MAX_S = 0.25


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
        #: vLLM's batch size (``--max-num-seqs``) once seen (module doc); None until then.
        self.batch: int | None = None
        self._full_running: int | None = None  # running at the last look, if the slots bound

    @property
    def step_s(self) -> float | None:
        """vLLM's engine step as its token counters show it: one answer token of a running
        request per step, so 1 / that rate (at most STEP_MAX_S); None until measured."""
        if not self._rate or self._rate <= 0:
            return None
        return min(STEP_MAX_S, 1.0 / self._rate)

    def decide(self, seen: Observation) -> Decision:
        """Take one observation; return (and adopt) the new limit."""
        self._learn_latency(seen.latencies)
        load = seen.load
        if load is None or load.running is None or load.waiting is None:
            self._preemptions = self._previous = self._first = self._rate = None
            self.batch = self._full_running = None
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
        self._learn_batch(load)
        limit, reason = self._by_load(seen, load, preempted, ahead)
        if self.config.reserve:
            # Before the batch is seen, the launch command's or the maximum stands for it.
            batch = self.batch or self.config.launch_batch or self.config.maximum
            ceiling = max(1, min(batch, self.config.maximum) - self.config.reserve)
            if limit > ceiling:
                return ceiling, Reason.RESERVE
        return limit, reason

    def _learn_batch(self, load: VLLMLoad) -> None:
        """Note vLLM's batch size when its slots are seen to bind (module doc)."""
        assert load.running is not None and load.waiting is not None
        bound = (
            load.waiting > 0
            and load.running > 0
            and (load.kv_usage is None or load.kv_usage < self.config.kv_high)
        )
        if bound and load.running == self._full_running:
            self.batch = max(self.batch or 0, load.running)
        self._full_running = load.running if bound else None

    def _by_load(
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
        # After a change, while growth waits for requests in transit, or to confirm a batch
        # size seen once (the reserve applies only after a second look agrees), look again soon.
        confirming = self.batch is None and self._full_running is not None
        soon = changed or reason is Reason.TURNOVER or confirming
        look = self.config.settle_s if soon else self.config.poll_s
        return Decision(limit, reason, signals, look, ahead)

    def _preempted(self, total: int | None) -> bool:
        previous, self._preemptions = self._preemptions, total
        if total is not None and previous is not None and total < previous:
            self.batch = None  # a restarted vLLM, perhaps with another --max-num-seqs
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

"""The server's ``GET /metrics``: Prometheus text (exposition format 0.0.4), made at scrape time.

Nothing is registered globally: each app owns one ``ServerMetrics`` (``services.metrics``),
which is handed the live parts it reads when scraped — the registry's jobs, the translator's
counters (``translation.model.stats``), the limiter, the vLLM manager and a fresh
``ServerStatus`` — and renders them with ``prometheus_client``'s metric families. Every name
starts with ``zotero_translate_``, except the vLLM sleep/wake series, which keep their first names
(``zt_vllm_*``, issue 11; the GPU status API's are ``zt_gpu_*``).

Job durations are observed at scrape time from the jobs' own timestamps (created -> started ->
finished): each finished job enters the histograms once, at the first scrape that sees it (its
id is remembered while the registry still lists it, so no scrape counts it twice). A job that
finished before this process started (a registry that outlives restarts) is never counted, and
one that left the registry's history before any scrape saw it is missed: with a scrape every
15 s that needs over 200 jobs finishing in between. A job re-queued by a restart keeps its
``created_at``, so its queue wait includes the downtime.

Labelled series are emitted with every label value they can take (0 when none yet), so a
dashboard's ``rate()`` sees the first increase of each.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from prometheus_client import generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    InfoMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from common.progress import Stage
from common.settings import Settings
from translation.model.adaptive_limiter import AdaptiveLimiter, LimitChange
from translation.model.known_answer import OUTCOMES as KNOWN_ANSWER_OUTCOMES
from translation.model.limiter import Limiter
from translation.model.stats import OUTCOMES, TranslationStats
from vllm_manager.manager import VLLMManager
from vllm_manager.snapshot import SleepInfo
from vllm_manager.state import VLLMState
from zotero_server import __version__
from zotero_server.http_errors import error_type_of
from zotero_server.job import Job
from zotero_server.server_status import ServerStatus

#: The media type of the exposition this module writes.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PREFIX = "zotero_translate_"

#: Seconds from a job's start to its end: a page takes seconds, a 40-page paper minutes.
JOB_BUCKETS = (5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0, 7200.0)
#: Seconds a job waited for one of ZT_MAX_JOBS slots.
QUEUE_BUCKETS = (0.1, 1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)
#: Error types an LLM client gives up with (zero-filled).
LLM_ERROR_KINDS = ("LLMError", "LLMUnavailable")
JOB_OUTCOMES = ("done", "failed")


class Histogram:
    """Bucket counts of observations (not cumulative; +Inf last), their sum and count."""

    def __init__(self, bounds: Sequence[float]) -> None:
        self.bounds = tuple(bounds)
        self.counts = [0] * (len(self.bounds) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        index = next((i for i, b in enumerate(self.bounds) if value <= b), len(self.bounds))
        self.counts[index] += 1
        self.sum += value

    def buckets(self) -> list[tuple[str, float]]:
        """Cumulative ``(le, count)`` pairs, ending with ``+Inf``."""
        pairs, total = [], 0
        for bound, count in zip((*self.bounds, math.inf), self.counts, strict=True):
            total += count
            pairs.append(("+Inf" if math.isinf(bound) else repr(float(bound)), float(total)))
        return pairs


class JobTimes:
    """Finished-job counters and duration histograms, fed from the jobs' timestamps."""

    def __init__(self, since: float) -> None:
        self.since = since
        self.durations = {outcome: Histogram(JOB_BUCKETS) for outcome in JOB_OUTCOMES}
        self.queue = Histogram(QUEUE_BUCKETS)
        self.finished: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self._started: set[str] = set()  # ids whose queue wait is counted
        self._ended: set[str] = set()  # ids whose end is counted

    def observe(self, jobs: Iterable[Job]) -> None:
        """Count what changed since the last call (each job's start and end once)."""
        known = set()
        for job in jobs:
            known.add(job.id)
            started, finished = job.started_at, job.finished_at
            if started is not None and job.id not in self._started:
                self._started.add(job.id)
                if started >= self.since:
                    self.queue.observe(max(0.0, started - job.created_at))
            if finished is None or not job.finished or job.id in self._ended:
                continue
            self._ended.add(job.id)
            if finished < self.since:
                continue
            outcome = "failed" if job.error is not None else "done"
            self.finished[outcome] += 1
            if job.error is not None:
                self.failed[error_type_of(job.error)] += 1
            if started is not None:
                self.durations[outcome].observe(max(0.0, finished - started))
        # Forget the jobs the registry no longer lists: they cannot come back.
        self._started &= known
        self._ended &= known


class LimiterLooks:
    """The adaptive limiter's looks by reason and signals, counted from its ``history`` (the
    last 512 looks, one a second or so while requests run: a scrape every 15 s sees them all)."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        self._last_at = -math.inf

    def observe(self, history: Iterable[LimitChange]) -> None:
        newest = self._last_at
        for change in history:
            if change.at > self._last_at:
                decision = change.decision
                self.counts[decision.reason.value, decision.signals.value] += 1
                newest = max(newest, change.at)
        self._last_at = newest


#: The reader plugins' protocols (``zotero_server.reader_routes``) and their outcomes.
READER_PROTOCOLS = ("libretranslate", "deeplx", "deepl_jsonrpc", "openai_chat")
READER_OUTCOMES = ("translated", "cached", "refused", "failed")


class ReaderCounts:
    """Selection requests by protocol and outcome, and the characters translated by each."""

    def __init__(self) -> None:
        self.requests: Counter[tuple[str, str]] = Counter()
        self.chars: Counter[str] = Counter()

    def count(self, protocol: str, outcome: str, chars: int = 0) -> None:
        self.requests[protocol, outcome] += 1
        self.chars[protocol] += chars

    def families(self) -> Iterator[Metric]:
        family = CounterMetricFamily(
            PREFIX + "reader_requests",
            "Selection/annotation/title requests from reader plugins, by protocol and outcome",
            labels=["protocol", "outcome"],
        )
        for protocol in READER_PROTOCOLS:
            for outcome in READER_OUTCOMES:
                family.add_metric([protocol, outcome], self.requests[protocol, outcome])
        yield family
        yield _labelled(
            CounterMetricFamily,
            "reader_chars",
            "Characters of reader-plugin text translated (cache hits included), by protocol",
            "protocol",
            {protocol: self.chars[protocol] for protocol in READER_PROTOCOLS},
        )


class ServerMetrics:
    """One app's ``/metrics``; see the module docstring."""

    def __init__(self, now: float | None = None) -> None:
        self.jobs = JobTimes(time.time() if now is None else now)
        self.looks = LimiterLooks()
        self.reader = ReaderCounts()

    def render(
        self,
        status: ServerStatus,
        *,
        jobs: Sequence[Job],
        settings: Settings,
        stats: TranslationStats,
        limiter: Limiter,
        manager: VLLMManager,
    ) -> bytes:
        """The exposition for this moment; ``status`` is a fresh read of the manager, ``jobs``
        every job the registry knows."""
        self.jobs.observe(jobs)
        families = [
            *self._job_families(jobs, settings.max_jobs),
            *_translation_families(stats),
            *self._limiter_families(limiter, settings),
            *_vllm_families(manager, status),
            *_host_families(status.hosts or []),
            *self.reader.families(),
            _info("build", "The server's version", {"version": __version__}),
        ]
        return generate_latest(_Families(families))

    def _job_families(self, jobs: Sequence[Job], max_jobs: int) -> Iterator[Metric]:
        by_stage = Counter(job.stage.value for job in jobs)
        yield _labelled(
            GaugeMetricFamily,
            "jobs",
            "Jobs the server knows, by stage (finished ones while in the history)",
            "state",
            {stage.value: by_stage.get(stage.value, 0) for stage in Stage},
        )
        yield _gauge("max_jobs", "Jobs that may run at once (ZT_MAX_JOBS)", max_jobs)
        times = self.jobs
        yield _labelled(
            CounterMetricFamily,
            "jobs_finished",
            "Jobs ended since the server started, by outcome",
            "outcome",
            {outcome: times.finished.get(outcome, 0) for outcome in JOB_OUTCOMES},
        )
        yield _labelled(
            CounterMetricFamily,
            "jobs_failed",
            "Failed jobs since the server started, by error type",
            "error_type",
            dict(times.failed),
        )
        duration = HistogramMetricFamily(
            PREFIX + "job_duration_seconds",
            "Seconds from a job's start (it got a slot) to its end, by outcome",
            labels=["outcome"],
        )
        for outcome, histogram in times.durations.items():
            duration.add_metric([outcome], histogram.buckets(), histogram.sum)
        yield duration
        queue = HistogramMetricFamily(
            PREFIX + "job_queue_seconds", "Seconds a job waited for a slot (ZT_MAX_JOBS)"
        )
        queue.add_metric([], times.queue.buckets(), times.queue.sum)
        yield queue

    def _limiter_families(self, limiter: Limiter, settings: Settings) -> Iterator[Metric]:
        yield _gauge("concurrency_limit", "LLM requests allowed in flight now", limiter.limit)
        yield _gauge("concurrency_in_flight", "LLM requests in flight now", limiter.in_flight)
        peak = getattr(limiter, "peak_in_flight", None)
        if isinstance(peak, int):
            yield _gauge("concurrency_peak_in_flight", "Most LLM requests ever in flight", peak)
        if not isinstance(limiter, AdaptiveLimiter):
            yield _gauge("concurrency_minimum", "Lowest limit the limiter may set", limiter.limit)
            yield _gauge("concurrency_maximum", "Highest limit the limiter may set", limiter.limit)
            labels = {"mode": "fixed", "reason": "fixed", "signals": "settings"}
        else:
            low, high = settings.concurrency_min, settings.concurrency_max
            yield _gauge("concurrency_minimum", "Lowest limit the limiter may set", low)
            yield _gauge("concurrency_maximum", "Highest limit the limiter may set", high)
            decision, load = limiter.last.decision, limiter.last.load
            reason, signals = decision.reason.value, decision.signals.value
            labels = {"mode": "adaptive", "reason": reason, "signals": signals}
            seen = {
                "running": load.running if load else None,
                "waiting": load.waiting if load else None,
                "kv_usage": load.kv_usage if load else None,
                "kv_ahead": decision.kv_ahead,
            }
            self.looks.observe(limiter.history)
            looks = CounterMetricFamily(
                PREFIX + "concurrency_looks",
                "The adaptive limiter's looks at vLLM, by the reason of their decision and the "
                "signals it followed (metrics, or latency alone)",
                labels=["reason", "signals"],
            )
            for (why, based_on), count in sorted(self.looks.counts.items()):
                looks.add_metric([why, based_on], count)
            yield looks
            yield _labelled(
                GaugeMetricFamily,
                "concurrency_input",
                "What the adaptive limiter's last look saw in vLLM (running, waiting, kv_usage, "
                "kv_ahead)",
                "figure",
                {name: value for name, value in seen.items() if value is not None},
            )
        yield _info(
            "concurrency",
            "What the limit was derived from: mode, the last decision's reason and its signals",
            labels,
        )


def _translation_families(stats: TranslationStats) -> Iterator[Metric]:
    yield _counter("papers", "Documents translated", stats.papers)
    yield _counter("pages", "Pages translated (those asked for)", stats.pages)
    yield _labelled(
        CounterMetricFamily,
        "paragraphs",
        "Paragraphs translated, by where the translation came from (llm or cache)",
        "source",
        {"llm": stats.paragraphs_from_llm, "cache": stats.paragraphs_from_cache},
    )
    llm = stats.llm
    yield _labelled(
        CounterMetricFamily,
        "llm_requests",
        "Requests sent to the LLM, by outcome (ok, cut_off, empty, connection, timeout, "
        "rate_limited, server_error, too_long, rejected)",
        "outcome",
        {outcome: llm.requests.get(outcome, 0) for outcome in OUTCOMES},
    )
    yield _labelled(
        CounterMetricFamily,
        "llm_tokens",
        "Tokens the LLM server reported, by kind (prompt, completion)",
        "kind",
        {"prompt": llm.prompt_tokens, "completion": llm.completion_tokens},
    )
    yield _labelled(
        CounterMetricFamily,
        "llm_errors",
        "Paragraph translations the LLM client gave up on after its retries, by error type",
        "kind",
        {kind: llm.errors.get(kind, 0) for kind in {*LLM_ERROR_KINDS, *llm.errors}},
    )


def _vllm_families(manager: VLLMManager, status: ServerStatus) -> Iterator[Metric]:
    states = {member.value: 0 for member in VLLMState}
    states[status.state.value] = 1
    yield _labelled(
        GaugeMetricFamily,
        "vllm_state",
        "1 for the vLLM state this server sees now",
        "state",
        states,
    )
    yield _gauge("vllm_up", "1 while vLLM answers its health check", int(status.healthy))
    yield _info("vllm_manager", "How this server reaches vLLM", {"manager": manager.kind})
    yield _counter("vllm_launches", "vLLM launches sent by this server", manager.launches_here)
    yield from _sleep_families(status.sleep)


def _host_families(hosts: Sequence[Mapping[str, Any]]) -> Iterator[Metric]:
    """Several GPU hosts: one series per host (label ``host``); nothing for one host."""
    if not hosts:
        return
    for name, help_text, key, kind in (
        ("host_ready", "1 while the GPU host takes requests", "takes_requests", GaugeMetricFamily),
        ("host_limit", "LLM requests allowed in flight on the host", "limit", GaugeMetricFamily),
        ("host_in_flight", "LLM requests in flight on the host", "in_flight", GaugeMetricFamily),
        ("host_answered", "LLM requests the host answered", "answered", CounterMetricFamily),
        ("host_lost", "LLM requests sent elsewhere: host gone", "lost", CounterMetricFamily),
    ):
        values = {str(host["name"]): float(host[key]) for host in hosts}
        yield _labelled(kind, name, help_text, "host", values)
    states = GaugeMetricFamily(
        PREFIX + "host_state", "1 for each GPU host's state", labels=["host", "state"]
    )
    for host in hosts:
        states.add_metric([str(host["name"]), str(host["state"])], 1)
    yield states


def _sleep_families(sleep: SleepInfo | None) -> Iterator[Metric]:
    """The vLLM sleep/wake series under their issue-11 names (zero without a sleep cycle)."""
    asleep = sleep is not None and sleep.asleep
    yield GaugeMetricFamily("zt_vllm_asleep", "1 while our vLLM sleeps", value=int(asleep))
    yield CounterMetricFamily(
        "zt_vllm_sleeps_total",
        "vLLM put to sleep by this server",
        value=sleep.sleeps if sleep is not None else 0,
    )
    yield CounterMetricFamily(
        "zt_vllm_wakes_total",
        "vLLM woken by this server",
        value=sleep.wakes if sleep is not None else 0,
    )
    yield CounterMetricFamily(
        "zt_vllm_wake_seconds_total",
        "Seconds spent waking vLLM (to confirmed)",
        value=sleep.wake_seconds_total if sleep is not None else 0.0,
    )
    counts = sleep.known_answer if sleep is not None else {}
    family = CounterMetricFamily(
        "zt_vllm_known_answer_probes",
        "Known-answer probes: after a wake (matched, mismatched: that vLLM was restarted,"
        " unrecorded), before a sleep (recorded), or failed",
        labels=["outcome"],
    )
    for outcome in KNOWN_ANSWER_OUTCOMES:
        family.add_metric([outcome], counts.get(outcome, 0))
    yield family
    yield GaugeMetricFamily(
        "zt_vllm_sleep_cycles",
        "Sleeps of the running vLLM process since its start",
        value=sleep.cycles if sleep is not None else 0,
    )


# --- building families ----------------------------------------------------------------------


class _Families(Collector):
    """The families of one scrape, in the shape ``generate_latest`` reads."""

    def __init__(self, families: Sequence[Metric]) -> None:
        self._families = families

    def collect(self) -> Iterable[Metric]:
        return iter(self._families)


def _gauge(name: str, help_text: str, value: float) -> Metric:
    return GaugeMetricFamily(PREFIX + name, help_text, value=value)


def _counter(name: str, help_text: str, value: float) -> Metric:
    return CounterMetricFamily(PREFIX + name, help_text, value=value)


def _info(name: str, help_text: str, labels: dict[str, str]) -> Metric:
    return InfoMetricFamily(PREFIX + name, help_text, value=labels)


def _labelled(
    kind: type[GaugeMetricFamily] | type[CounterMetricFamily],
    name: str,
    help_text: str,
    label: str,
    values: Mapping[str, float],
) -> Metric:
    family = kind(PREFIX + name, help_text, labels=[label])
    for key in sorted(values):
        family.add_metric([key], values[key])
    return family

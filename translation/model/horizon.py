"""The pool's horizon: when its work would end, and which hosts' longest answers outlast it.

An engine makes one token per step for every sequence in its batch, and a fuller batch makes
each step slower. So an answer of g tokens takes g steps on ONE host, at that host's step time:
with several hosts sharing a paper, the host running the paper's longest answer can finish
last, at a full batch, well after the others ran out of work. Such a host should take less new
work (its steps get quicker, that answer ends sooner) and the others more.

Pure arithmetic on what the dispatcher sees (``translation.model.dispatch``): per host, the rate
at which ONE of its running requests receives answer tokens (learned from its vLLM's counters,
``translation.model.concurrency_control``) and its requests in flight (size, age); and the
sizes still queued. A request's answer is estimated at ``CHARS_PER_TOKEN`` characters a token
(about as long as its source). The pool's horizon is the work left (what is queued plus what
the requests in flight have still to make) over the pool's rate (each host's rate per request
times its requests in flight). The host whose longest request left would end last is HELD (it
takes no new request) while that end is after the horizon: the work goes to the others. Holding
thins its batch, which raises its rate; once another host's longest would end later, that one
is held instead, so the late hosts settle where their ends meet. Only one host is held at a
time, so the pool never stops taking work. A host with no learned rate, or a pool of one,
holds none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Characters of source per answer token (``translation.model.prompts.estimate_tokens``'s
#: ASCII rate; a translation is about as long as its source).
CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class HostWork:
    """One host as the horizon sees it: ``rate`` is answer tokens per second of one running
    request (None: not learned yet); ``running`` the (size in characters, seconds since sent)
    of each request in flight there."""

    rate: float | None
    running: Sequence[tuple[int, float]]


def left_tokens(size: int, age_s: float, rate: float) -> float:
    """The answer tokens a request of ``size`` characters sent ``age_s`` ago has still to make."""
    return max(0.0, size / CHARS_PER_TOKEN - rate * age_s)


def held(hosts: Mapping[str, HostWork], queued: Sequence[int]) -> set[str]:
    """The hosts that should take no new request now (see the module docstring)."""
    if len(hosts) < 2 or not queued:
        return set()
    rates: dict[str, float] = {}
    for name, host in hosts.items():
        if host.rate is None or host.rate <= 0:
            return set()
        rates[name] = host.rate
    pool_rate = sum(rates[name] * len(host.running) for name, host in hosts.items())
    if pool_rate <= 0:
        return set()
    work = sum(queued) / CHARS_PER_TOKEN + sum(
        left_tokens(size, age, rates[name])
        for name, host in hosts.items()
        for size, age in host.running
    )
    horizon_s = work / pool_rate
    ends = {
        name: max(left_tokens(size, age, rates[name]) for size, age in host.running) / rates[name]
        for name, host in hosts.items()
        if host.running
    }
    latest = max(ends, key=lambda name: ends[name], default=None)
    if latest is None or ends[latest] <= horizon_s:
        return set()
    return {latest}

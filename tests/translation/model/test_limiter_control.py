"""The adaptive limiter's control law as pure logic: samples in, decisions out."""

from __future__ import annotations

import pytest

from translation.model.concurrency_control import (
    ConcurrencyControl,
    ControlConfig,
    Observation,
    Reason,
    Signals,
)
from translation.model.metrics import VLLMLoad


def control(
    initial: int = 10,
    minimum: int = 2,
    maximum: int = 64,
    reserve: int = 0,
    launch_batch: int | None = None,
) -> ConcurrencyControl:
    return ConcurrencyControl(
        ControlConfig(
            minimum=minimum,
            maximum=maximum,
            initial=initial,
            poll_s=1.0,
            settle_s=0.1,
            reserve=reserve,
            launch_batch=launch_batch,
        )
    )


def seen(
    in_flight: int,
    running: int,
    waiting: int,
    *,
    kv: float | None = 0.1,
    preemptions: int | None = 0,
    demand: bool = True,
    failures: int = 0,
) -> Observation:
    load = VLLMLoad(running=running, waiting=waiting, kv_usage=kv, preemptions_total=preemptions)
    return Observation(in_flight=in_flight, demand=demand, load=load, failures=failures)


def test_room_in_the_batch_grows_the_limit_by_a_small_step_and_looks_again_soon() -> None:
    law = control(initial=10)
    decision = law.decide(seen(in_flight=10, running=10, waiting=0))
    assert (decision.limit, decision.reason, decision.signals) == (12, Reason.GROW, Signals.METRICS)
    assert decision.next_look_s == 0.1
    assert law.limit == 12


def test_a_queue_within_target_means_the_batch_is_full_hold_and_look_less_often() -> None:
    law = control(initial=10)
    looks = [law.decide(seen(in_flight=10, running=8, waiting=w)) for w in (1, 2, 1)]
    assert [(d.limit, d.reason) for d in looks] == [(10, Reason.FULL)] * 3
    # The first look at bound slots is confirmed soon (the batch size, module doc), then rarely.
    assert [d.next_look_s for d in looks] == [0.1, 1.0, 1.0]


def test_a_longer_queue_shrinks_by_the_excess_counted_from_what_is_in_flight() -> None:
    law = control(initial=40)
    first = law.decide(seen(in_flight=40, running=32, waiting=8))
    assert (first.limit, first.reason) == (34, Reason.QUEUE)
    # Next look: the queue drains only as requests finish; counting from in-flight (still 38)
    # rather than from the limit never subtracts the same excess twice.
    second = law.decide(seen(in_flight=38, running=32, waiting=6))
    assert (second.limit, second.reason) == (34, Reason.QUEUE)


def test_an_empty_queue_while_some_of_ours_are_not_running_is_no_evidence_of_room() -> None:
    law = control(initial=34)
    decision = law.decide(seen(in_flight=34, running=32, waiting=0))
    assert (decision.limit, decision.reason) == (34, Reason.TURNOVER)
    assert decision.next_look_s == 0.1  # look again soon, not in a second


def test_a_limit_that_does_not_bind_is_left_alone() -> None:
    law = control(initial=10)
    decision = law.decide(seen(in_flight=3, running=3, waiting=0, demand=False))
    assert (decision.limit, decision.reason) == (10, Reason.UNUSED)


def test_preemptions_cut_once_per_episode_and_a_counter_reset_is_a_new_baseline() -> None:
    law = control(initial=40)
    assert law.decide(seen(40, 40, 0, preemptions=5)).limit == 42  # a baseline, not a signal
    cut = law.decide(seen(40, 40, 0, preemptions=9))
    assert (cut.limit, cut.reason) == (30, Reason.PREEMPTION)  # 3/4 of the 40 in flight
    # Still preempting while the cut drains (39 in flight > 30): no second cut.
    again = law.decide(seen(39, 36, 3, preemptions=12))
    assert (again.limit, again.reason) == (30, Reason.PREEMPTION)
    # A restarted vLLM reports a smaller counter: a new baseline, not a preemption.
    restart = law.decide(seen(20, 20, 0, preemptions=0))
    assert restart.reason is not Reason.PREEMPTION


def test_kv_near_full_holds_and_kv_over_the_ceiling_shrinks_within_a_bounded_cut() -> None:
    law = control(initial=30)
    hold = law.decide(seen(30, 30, 0, kv=0.85))
    assert (hold.limit, hold.reason) == (30, Reason.KV_HIGH)
    shrink = law.decide(seen(30, 30, 0, kv=0.96))
    assert shrink.reason is Reason.KV_FULL
    assert shrink.limit == 25  # 30 * 0.80 / 0.96
    deep = law.decide(seen(25, 25, 0, kv=1.0))
    assert deep.limit == 20  # 25 * 0.80: within the bounded cut (at most to 3/4)


def test_growth_stops_where_the_kv_room_ends() -> None:
    law = control(initial=20)
    # 20 requests hold 0.76 of the cache: one more fits under 0.80, two do not.
    decision = law.decide(seen(20, 20, 0, kv=0.76))
    assert (decision.limit, decision.reason) == (21, Reason.GROW)


def kv_look(at: float, kv: float, generated: int, prompts: int) -> Observation:
    """Ten of our requests, all started at 0 s, on a 10,000-token cache."""
    load = VLLMLoad(
        running=10,
        waiting=0,
        kv_usage=kv,
        preemptions_total=0,
        kv_capacity_tokens=10_000,
        prompt_tokens_total=prompts,
        generation_tokens_total=generated,
    )
    return Observation(in_flight=10, demand=True, load=load, at=at, ages_s=10 * at)


def test_kv_ahead_counts_the_answers_young_requests_have_yet_to_make() -> None:
    law = control(initial=10)
    law.decide(kv_look(at=0.0, kv=0.40, generated=0, prompts=4000))  # no rate yet: grows to 12
    # 1 s later they made 20 tokens/s each: 4,200 tokens held, 200 of them answers. The 4,000
    # prompt tokens bring about as many answer tokens (the prior ratio, nothing finished yet):
    # 3,800 still to come.
    decision = law.decide(kv_look(at=1.0, kv=0.42, generated=200, prompts=4000))
    assert decision.kv_ahead == pytest.approx(0.42 + 3800 / 10_000)
    assert (decision.limit, decision.reason) == (12, Reason.KV_HIGH)  # no growth at 0.42 used


def test_the_same_kv_use_from_requests_nearly_done_leaves_room_to_grow() -> None:
    law = control(initial=10)
    law.decide(kv_look(at=0.0, kv=0.22, generated=0, prompts=2200))
    # 10 s later: 2,000 answer tokens made, 200 more to come.
    decision = law.decide(kv_look(at=10.0, kv=0.42, generated=2000, prompts=2200))
    assert decision.kv_ahead == pytest.approx(0.44)
    assert (decision.limit, decision.reason) == (14, Reason.GROW)


def test_the_limit_stays_within_its_bounds() -> None:
    low = control(initial=2, minimum=2)
    assert low.decide(seen(2, 2, 30)).limit == 2
    assert low.decide(seen(2, 2, 0, failures=3)).limit == 2
    high = control(initial=64, maximum=64)
    decision = high.decide(seen(64, 64, 0, kv=0.1))
    assert (decision.limit, decision.reason) == (64, Reason.AT_MAX)
    assert control(initial=500, maximum=64).limit == 64


def test_failed_requests_cut_the_limit() -> None:
    law = control(initial=20)
    decision = law.decide(seen(20, 20, 0, failures=1))
    assert (decision.limit, decision.reason) == (15, Reason.FAILURES)


def test_without_metrics_latency_drives_the_limit() -> None:
    law = control(initial=10)

    def latency_only(latencies: tuple[float, ...], demand: bool = True) -> Observation:
        return Observation(in_flight=10, demand=demand, load=None, latencies=latencies)

    first = law.decide(latency_only((1.0, 1.2, 0.9)))
    assert (first.limit, first.reason, first.signals) == (11, Reason.GROW, Signals.LATENCY)
    steady = law.decide(latency_only((1.5, 1.6, 1.7)))  # 1.6x the baseline: tolerated
    assert (steady.limit, steady.reason) == (12, Reason.GROW)
    slow = law.decide(latency_only((4.0, 4.2, 4.1)))  # ~4.3x: queueing somewhere
    assert slow.reason is Reason.SLOW
    assert slow.limit == 6  # cut in proportion, at most by half
    assert law.decide(latency_only((), demand=True)).reason is Reason.STEADY


def test_a_server_whose_metrics_lack_the_queue_is_handled_by_latency() -> None:
    law = control(initial=10)
    decision = law.decide(Observation(in_flight=10, demand=True, load=VLLMLoad(kv_usage=0.5)))
    assert decision.signals is Signals.LATENCY


@pytest.mark.parametrize("slots", [4, 32])
def test_closed_loop_against_a_slot_bound_server_settles_at_its_slots_plus_the_target(
    slots: int,
) -> None:
    """A server with ``slots`` batch slots and a client that always has work waiting."""
    law = control(initial=2)
    peak_waiting = 0
    for _ in range(60):
        in_flight = law.limit
        running = min(in_flight, slots)
        waiting = in_flight - running
        peak_waiting = max(peak_waiting, waiting)
        law.decide(seen(in_flight, running, waiting, kv=running / (slots * 4)))
    assert law.limit == slots + 2
    assert peak_waiting <= 2


@pytest.mark.parametrize("slots", [4, 32])
def test_with_a_reserve_the_loop_settles_one_below_the_batch_so_a_selection_finds_a_slot(
    slots: int,
) -> None:
    """vLLM never preempts for a waiting request: a free batch slot is the only fast way in."""
    law = control(initial=2, reserve=1)
    decisions = []
    for _ in range(60):
        in_flight = law.limit
        running = min(in_flight, slots)
        decisions.append(law.decide(seen(in_flight, running, in_flight - running, kv=0.1)))
    assert law.batch == slots
    assert law.limit == slots - 1
    assert decisions[-1].reason is Reason.RESERVE
    # Learning the batch took overshooting it once: the limit was above the batch before.
    assert max(d.limit for d in decisions) > slots


def test_the_batch_is_learned_from_two_alike_looks_with_the_cache_not_binding() -> None:
    law = control(initial=40, reserve=1)
    law.decide(seen(in_flight=40, running=20, waiting=20))  # one look: perhaps a burst
    assert law.batch is None
    law.decide(seen(in_flight=40, running=24, waiting=16))  # not alike: still nothing
    assert law.batch is None
    law.decide(seen(in_flight=40, running=24, waiting=16, kv=0.95))  # the cache binds
    assert law.batch is None
    law.decide(seen(in_flight=40, running=24, waiting=16))
    law.decide(seen(in_flight=40, running=24, waiting=16))
    assert law.batch == 24
    decision = law.decide(seen(in_flight=24, running=24, waiting=0))  # would grow
    assert (decision.limit, decision.reason) == (23, Reason.RESERVE)


def test_the_batch_is_forgotten_when_metrics_vanish_or_vllm_restarts() -> None:
    law = control(initial=40, reserve=1)
    for _ in range(2):
        law.decide(seen(in_flight=40, running=16, waiting=24, preemptions=5))
    assert law.batch == 16
    law.decide(seen(in_flight=16, running=16, waiting=0, preemptions=0))  # counter fell
    assert law.batch is None
    for _ in range(2):
        law.decide(seen(in_flight=40, running=16, waiting=24, preemptions=0))
    assert law.batch == 16
    law.decide(Observation(in_flight=16, demand=True, load=None, failures=0))
    assert law.batch is None


def test_before_the_batch_is_seen_the_maximum_stands_for_it() -> None:
    """The launch profiles set ZT_CONCURRENCY_MAX to their --max-num-seqs: the reserve holds
    from the first look, before any overshoot could show the batch."""
    law = control(initial=30, maximum=32, reserve=1)
    decision = law.decide(seen(in_flight=30, running=30, waiting=0))
    assert law.batch is None
    assert (decision.limit, decision.reason) == (31, Reason.RESERVE)
    assert law.decide(seen(in_flight=31, running=31, waiting=0)).limit == 31


@pytest.mark.parametrize("slots", [4, 32])
def test_a_batch_our_launch_command_names_holds_the_reserve_without_an_overshoot(
    slots: int,
) -> None:
    """The default ZT_VLLM_COMMAND names --max-num-seqs 32 while ZT_CONCURRENCY_MAX is 64:
    the command's batch stands for the one not yet seen, so the paper never fills the batch,
    not even in its first seconds (the same loop without it overshoots: the test above)."""
    law = control(initial=2, reserve=1, launch_batch=slots)
    decisions = []
    for _ in range(60):
        in_flight = law.limit
        running = min(in_flight, slots)
        decisions.append(law.decide(seen(in_flight, running, in_flight - running, kv=0.1)))
    assert max(d.limit for d in decisions) == slots - 1
    assert law.batch is None  # never seen binding: nothing ever waited in vLLM
    assert decisions[-1].reason is Reason.RESERVE


def test_a_batch_seen_smaller_than_the_launch_command_says_wins() -> None:
    """A vLLM started by hand with fewer slots than our command names is learned as usual."""
    law = control(initial=20, reserve=1, launch_batch=32)
    for _ in range(2):
        law.decide(seen(in_flight=20, running=12, waiting=8))
    assert law.batch == 12
    assert law.decide(seen(in_flight=12, running=12, waiting=0)).limit == 11


def test_without_a_reserve_a_learned_batch_changes_nothing() -> None:
    law = control(initial=10)
    for _ in range(2):
        law.decide(seen(in_flight=10, running=8, waiting=2))
    assert law.batch == 8
    decision = law.decide(seen(in_flight=8, running=8, waiting=0))
    assert (decision.limit, decision.reason) == (12, Reason.GROW)  # grows past the batch


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("minimum", 0),
        ("maximum", 1),
        ("kv_high", 0.95),
        ("cut", 1.0),
        ("step", 0),
        ("reserve", -1),
        ("launch_batch", 0),
    ],
)
def test_config_rejects_nonsense(field: str, value: float) -> None:
    base: dict[str, float] = {"minimum": 2, "maximum": 64, "initial": 2}
    base[field] = value
    with pytest.raises(ValueError):
        ControlConfig(**base)  # type: ignore[arg-type]

"""Both limiters share their slots fairly between owners (jobs): translation/model/fair_slots.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from translation.model.adaptive_limiter import AdaptiveLimiter
from translation.model.concurrency_control import ControlConfig
from translation.model.limiter import FixedLimiter, Limiter


def fixed(limit: int) -> Limiter:
    return FixedLimiter(limit)


def adaptive(limit: int) -> Limiter:
    # Latency only, bounds pinned: the limit cannot move, so the order is the fair order alone.
    config = ControlConfig(minimum=limit, maximum=limit, initial=limit, poll_s=0.05)
    return AdaptiveLimiter(config, metrics_url=None)


LIMITERS = pytest.mark.parametrize("make", [fixed, adaptive], ids=["fixed", "adaptive"])


class Desk:
    """Requests under owners, each held until the test releases it; records the grant order."""

    def __init__(self, limiter: Limiter) -> None:
        self.limiter = limiter
        self.granted: list[str] = []
        self._release: dict[str, asyncio.Event] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}

    async def ask(self, owner: str, name: str) -> None:
        """Start request ``name`` of ``owner`` (it queues if no slot is free)."""
        self._release[name] = asyncio.Event()
        self.tasks[name] = asyncio.create_task(self._hold(owner, name))
        await asyncio.sleep(0)

    async def _hold(self, owner: str, name: str) -> None:
        async with self.limiter.slot(owner):
            self.granted.append(name)
            await self._release[name].wait()

    async def finish(self, name: str) -> None:
        self._release[name].set()
        async with asyncio.timeout(5):  # a request never granted fails the test, not hangs it
            await self.tasks[name]
        for _ in range(3):  # let the granted waiters record themselves
            await asyncio.sleep(0)

    async def drain(self) -> None:
        for event in self._release.values():
            event.set()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        await self.limiter.aclose()


async def start(make: Callable[[int], Limiter], limit: int) -> Desk:
    return Desk(make(limit))


@LIMITERS
async def test_a_short_job_behind_a_long_one_gets_the_freed_slots_first(
    make: Callable[[int], Limiter],
) -> None:
    desk = await start(make, 2)
    for i in range(6):
        await desk.ask("long", f"L{i}")
    assert desk.granted == ["L0", "L1"]
    for i in range(2):
        await desk.ask("short", f"S{i}")
    assert desk.limiter.waiting("long") == 4 and desk.limiter.waiting("short") == 2
    assert desk.limiter.waiting() == 6 and desk.limiter.held("long") == 2

    # Two slots, two owners: too few for a floor each; "short" has less left: it goes first.
    await desk.finish("L0")
    await desk.finish("L1")
    assert desk.granted[2:] == ["S0", "S1"]
    assert desk.limiter.held("short") == 2 and desk.limiter.held("long") == 0

    await desk.finish("S0")  # "short" has nothing waiting: "long" resumes in its own order
    await desk.finish("S1")
    assert desk.granted[4:] == ["L2", "L3"]
    await desk.drain()


@LIMITERS
async def test_an_owner_with_work_keeps_one_slot_when_there_are_enough(
    make: Callable[[int], Limiter],
) -> None:
    desk = await start(make, 8)  # 4 slots per owner: a floor of one each
    for i in range(30):
        await desk.ask("long", f"L{i}")
    for i in range(10):
        await desk.ask("short", f"S{i}")
    for i in range(7):
        await desk.finish(f"L{i}")
    assert desk.granted[8:] == [f"S{i}" for i in range(7)]
    # "long" has more left, but when its last slot frees it gets it back: it never starves.
    await desk.finish("L7")
    assert desk.granted[15:] == ["L8"]
    assert desk.limiter.held("long") == 1 and desk.limiter.held("short") == 7
    await desk.drain()


@LIMITERS
async def test_with_one_slot_the_owner_with_fewest_waiting_goes_first(
    make: Callable[[int], Limiter],
) -> None:
    desk = await start(make, 1)
    await desk.ask("a", "A0")
    for name, owner in [("B0", "b"), ("C0", "c"), ("B1", "b"), ("A1", "a")]:
        await desk.ask(owner, name)
    # "c" and "a" have one waiting each, "b" two; between "c" and "a", "c" came first.
    for name in ["A0", "C0", "A1"]:
        await desk.finish(name)
    assert desk.granted == ["A0", "C0", "A1", "B0"]
    await desk.drain()


@LIMITERS
async def test_a_tie_goes_to_the_owner_served_least_recently(
    make: Callable[[int], Limiter],
) -> None:
    desk = await start(make, 1)
    await desk.ask("x", "X")
    await desk.ask("a", "A0")
    await desk.ask("b", "B0")
    await desk.finish("X")  # one waiting each: "a" came first
    await desk.ask("a", "A1")  # one waiting each again: "a" was just served, so "b"
    await desk.finish("A0")
    assert desk.granted == ["X", "A0", "B0"]
    await desk.drain()


@LIMITERS
async def test_inside_one_owner_requests_are_served_in_the_order_they_came(
    make: Callable[[int], Limiter],
) -> None:
    desk = await start(make, 1)
    for i in range(5):
        await desk.ask("", f"R{i}")
    for i in range(4):
        await desk.finish(f"R{i}")
    assert desk.granted == ["R0", "R1", "R2", "R3", "R4"]
    await desk.drain()


@LIMITERS
async def test_a_cancelled_job_leaves_the_queue_at_once_and_blocks_nobody(
    make: Callable[[int], Limiter],
) -> None:
    desk = await start(make, 1)
    await desk.ask("a", "A0")
    for i in range(3):
        await desk.ask("b", f"B{i}")
    await desk.ask("c", "C0")
    for i in range(3):  # job "b" is cancelled while all of its requests wait
        desk.tasks[f"B{i}"].cancel()
    await asyncio.sleep(0)
    assert desk.limiter.waiting("b") == 0 and desk.limiter.waiting() == 1
    await desk.finish("A0")
    assert desk.granted == ["A0", "C0"]
    await desk.finish("C0")
    assert desk.limiter.in_flight == 0 and desk.limiter.owners() == []  # type: ignore[attr-defined]
    await desk.drain()


@LIMITERS
async def test_a_waiter_granted_then_cancelled_hands_the_slot_to_the_next_owner(
    make: Callable[[int], Limiter],
) -> None:
    limiter = make(1)
    release = asyncio.Event()
    granted: list[str] = []
    tasks: dict[str, asyncio.Task[None]] = {}

    async def user(owner: str) -> None:
        async with limiter.slot(owner):
            granted.append(owner)
            if owner == "a":
                await release.wait()
        if owner == "a":
            tasks["b"].cancel()  # leaving the slot granted it to "b", which has not run yet

    for owner in "abc":
        tasks[owner] = asyncio.create_task(user(owner))
        await asyncio.sleep(0)
    release.set()
    async with asyncio.timeout(5):
        await tasks["c"]
    with pytest.raises(asyncio.CancelledError):
        await tasks["b"]
    assert granted == ["a", "c"]
    assert limiter.in_flight == 0 and limiter.held("b") == 0 and limiter.waiting() == 0
    await limiter.aclose()

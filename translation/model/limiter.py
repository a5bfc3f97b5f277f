"""Concurrency control for LLM requests.

The pipeline wraps every LLM request in ``async with limiter.slot(owner):``. A limiter decides how
many may be in flight at once. ``FixedLimiter`` holds a constant limit. ``AdaptiveLimiter``
(``ZT_CONCURRENCY_MODE=adaptive``, ``translation.model.adaptive_limiter``) moves its limit with
what vLLM reports on ``/metrics`` so that vLLM's batch stays full while its waiting queue stays
near zero and nothing is preempted; ``ConcurrencyControl``
(``translation.model.concurrency_control``) is its control law, pure logic that the tests feed
samples. One limiter serves every job of the process (the Translator owns it), so the limit is
shared; the slots are shared fairly between the jobs (``slot(owner)``), in the order
``translation.model.fair_slots`` gives.

Shrinking never waits for requests in flight: a new slot is granted once fewer than the limit
hold one. A waiter that is cancelled gives up its place (or its slot, if it had just been
granted one); a body that raises or is cancelled releases its slot.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import httpx

from common.errors import ConfigError
from common.settings import ConcurrencyMode
from translation.model.adaptive_limiter import AdaptiveLimiter
from translation.model.fair_slots import FairSlots

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


# --- the adaptive limiter (I/O) --------------------------------------------------------------


def make_limiter(
    settings: Settings,
    http_client: httpx.AsyncClient | None = None,
    *,
    launch_batch: int | None = None,
) -> Limiter:
    """The limiter ``ZT_CONCURRENCY_MODE`` asks for.

    fixed: ``ZT_CONCURRENCY`` at all times. adaptive: starts at ``ZT_CONCURRENCY_MIN`` (a
    higher start would queue inside a small vLLM at once) and moves up to
    ``ZT_CONCURRENCY_MAX``; the limit it learned carries over to the next job; ``launch_batch``
    is the batch size of the command our manager starts vLLM with, if it does. Raises
    ``ConfigError`` when the bounds are inverted.
    """
    if settings.concurrency_mode is ConcurrencyMode.FIXED:
        return FixedLimiter(settings.concurrency)
    if settings.concurrency_min > settings.concurrency_max:
        raise ConfigError(
            f"ZT_CONCURRENCY_MIN ({settings.concurrency_min}) is above ZT_CONCURRENCY_MAX "
            f"({settings.concurrency_max})"
        )
    return AdaptiveLimiter.from_settings(settings, http_client, launch_batch=launch_batch)

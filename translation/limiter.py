"""Concurrency control for LLM requests.

The pipeline wraps every LLM request in ``async with limiter.slot():``. A limiter decides how
many may be in flight at once; ``FixedLimiter`` holds a constant limit. An adaptive limiter
(issue 6) implements the same Protocol and can observe each request's outcome, because an
exception raised inside ``slot()`` passes through its context manager.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol, runtime_checkable


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

    def slot(self) -> AbstractAsyncContextManager[None]:
        """Wait for a free slot and hold it for the body of the ``async with``."""
        ...


class FixedLimiter:
    """Never more than ``limit`` requests in flight; waiters are served first come, first served.

    Records ``peak_in_flight`` (the most ever held at once) for tests and the progress page.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self._limit = limit
        self._semaphore = asyncio.Semaphore(limit)
        self._in_flight = 0
        self._peak = 0

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def peak_in_flight(self) -> int:
        return self._peak

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        async with self._semaphore:
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)
            try:
                yield
            finally:
                self._in_flight -= 1

    def __repr__(self) -> str:
        return f"FixedLimiter(limit={self._limit}, in_flight={self._in_flight})"

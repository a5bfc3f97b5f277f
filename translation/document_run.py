"""The state of one document's translation (``translation.pipeline.Translator.translate``).

One :class:`DocumentRun` per ``translate()`` call: its counts, its recoveries from a lost LLM
and the requests sent again elsewhere when a GPU host went away. :class:`Aborted` and
:class:`Elsewhere` are how one request tells the pipeline it was not answered.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from common.errors import LLMError, LLMUnavailableError
from common.progress import ProgressSink
from translation.model.dispatch import Lane
from translation.request import TranslationRequest

EnsureReady = Callable[[ProgressSink], Awaitable[None]]

#: How many times one document may bring the LLM back after losing it mid-paper.
MAX_RECOVERIES = 3
#: How many of one document's requests may be sent again to another GPU host; past that, hosts
#: that keep coming back and failing count as losing the LLM (``MAX_RECOVERIES``).
MAX_MOVES = 100


@dataclass
class DocumentRun:
    """Mutable state of one ``translate()`` call."""

    request: TranslationRequest
    progress: ProgressSink
    total: int
    cached: int
    done: int = 0
    llm_calls: int = 0
    recoveries: int = 0
    # Bumped after each successful recovery, so that requests which failed during the same
    # outage retry instead of bringing the LLM up again.
    generation: int = 0
    recovery_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Set when the job has failed: requests not yet sent are not sent.
    aborted: bool = False
    #: This document's way to bring the LLM up (the translator's unless the job gave one).
    ensure_ready: EnsureReady | None = None
    #: Requests answered by each GPU host (several hosts only): the progress text names them.
    hosts: Counter[str] = field(default_factory=Counter)
    #: Requests sent again elsewhere because their host went away (bounded: ``MAX_MOVES``).
    moved: int = 0

    def progress_text(self) -> str:
        """ "translating k/n", with the requests each GPU host answered where there are several."""
        text = f"translating {self.done}/{self.total}"
        if self.hosts:
            text += " (" + ", ".join(f"{name} {n}" for name, n in sorted(self.hosts.items())) + ")"
        return text


class Aborted(Exception):
    """A request not sent because its job already failed, or the translator is draining."""


class Elsewhere(Exception):
    """The request's host went away before it answered: send it to another."""


def host_gone(lane: Lane, exc: LLMError) -> bool:
    """Whether a failure on ``lane`` means its host went away (send the request elsewhere)
    rather than that the request itself is bad: unreachable, or a lane already closed (a
    sleeping or dying engine answers 500s)."""
    return isinstance(exc, LLMUnavailableError) or not lane.ready

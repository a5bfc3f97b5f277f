"""Progress vocabulary shared by the pipeline, the manager and the server.

Producers call a ``ProgressSink`` with small immutable events; they never format SSE or text
for a particular client. ``zotero_server.events`` forwards them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Stage(StrEnum):
    QUEUED = "queued"
    WAITING_GPU = "waiting_gpu"
    STARTING_LLM = "starting_llm"
    TRANSLATING = "translating"
    RENDERING = "rendering"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class Progress:
    """One step of a job. ``done``/``total`` count paragraphs while translating."""

    stage: Stage
    message: str
    done: int = 0
    total: int = 0
    data: dict[str, Any] = field(default_factory=dict)


ProgressSink = Callable[[Progress], None]


def ignore_progress(_: Progress) -> None:
    """A sink that drops everything."""

"""ProgressFeed: one bring-up's progress, fanned out to every caller waiting on it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from common.progress import Progress, ProgressSink, Stage

log = logging.getLogger(__name__)


class ProgressFeed:
    """The subscribers of the bring-up in flight, and the latest event it sent.

    A caller that joins late first receives the latest event, then every later one. A sink
    that raises is logged and skipped: a broken subscriber never breaks the bring-up.
    """

    def __init__(self) -> None:
        self._sinks: list[ProgressSink] = []
        self.last: Progress | None = None

    def restart(self) -> None:
        """A new bring-up begins: forget the previous one's latest event."""
        self.last = None

    @contextmanager
    def subscribed(self, sink: ProgressSink) -> Iterator[None]:
        self._sinks.append(sink)
        try:
            if self.last is not None:
                sink(self.last)
            yield
        finally:
            self._sinks.remove(sink)

    def emit(self, stage: Stage, message: str, **data: Any) -> None:
        event = Progress(stage=stage, message=message, data=data)
        self.last = event
        for sink in list(self._sinks):
            try:
                sink(event)
            except Exception:
                log.exception("progress sink failed")

    def emit_changed(self, stage: Stage, message: str, **data: Any) -> None:
        """Emit unless the latest event said the same (health is polled twice a second)."""
        last = self.last
        if last is None or (last.stage, last.message) != (stage, message):
            self.emit(stage, message, **data)

"""Progress output of the command line: a bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import time
from typing import TextIO

from common.progress import Progress, Stage

BAR_WIDTH = 30
#: Plain-line mode prints at most one "translating n/N" line this often (seconds).
PLAIN_INTERVAL_S = 2.0


class ProgressDisplay:
    """A ``ProgressSink`` writing to ``stream`` (stderr); ``close()`` ends the bar's line."""

    def __init__(self, stream: TextIO, *, interactive: bool | None = None) -> None:
        self._stream = stream
        self._interactive = stream.isatty() if interactive is None else interactive
        self._last_stage: Stage | None = None
        self._last_message = ""
        self._last_plain = 0.0
        self._bar_open = False

    def __call__(self, event: Progress) -> None:
        if self._interactive:
            self._draw_bar(event)
        else:
            self._print_line(event)
        self._last_stage = event.stage
        self._last_message = event.message

    def close(self) -> None:
        if self._bar_open:
            self._stream.write("\n")
            self._stream.flush()
            self._bar_open = False

    def _draw_bar(self, event: Progress) -> None:
        if event.total > 0 and event.stage is Stage.TRANSLATING:
            filled = round(BAR_WIDTH * event.done / event.total)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            pct = 100 * event.done // event.total
            self._stream.write(f"\r[{bar}] {pct:3d}% {event.done}/{event.total} paragraphs")
            self._bar_open = True
        elif event.message != self._last_message:
            self.close()
            self._stream.write(f"{event.message}\n")
        self._stream.flush()

    def _print_line(self, event: Progress) -> None:
        now = time.monotonic()
        changed = event.stage is not self._last_stage
        finished = event.total > 0 and event.done == event.total
        if event.stage is Stage.TRANSLATING and event.total > 0:
            if changed or finished or now - self._last_plain >= PLAIN_INTERVAL_S:
                self._stream.write(f"translating: {event.done}/{event.total} paragraphs\n")
                self._last_plain = now
        elif changed or event.message != self._last_message:
            self._stream.write(f"{event.message}\n")
        self._stream.flush()

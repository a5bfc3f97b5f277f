"""Activity: the translations in progress in this process, and when work was last seen."""

from __future__ import annotations

import time


class Activity:
    """Counted by the manager's ``work()``; read by the sleep cycle and the idle give-back.

    Event-loop only (no locks): a check and the change it leads to happen without an await in
    between.
    """

    def __init__(self) -> None:
        self.active = 0
        self.last = time.monotonic()
        #: A hand-back was asked for while translations ran: sleep when the last one ends.
        self.sleep_requested = False

    def touch(self) -> None:
        self.last = time.monotonic()

    def idle_for(self) -> float:
        return time.monotonic() - self.last

    def is_idle(self, idle_s: float) -> bool:
        """No work in progress, and none seen for ``idle_s`` seconds."""
        return self.active == 0 and self.idle_for() >= idle_s

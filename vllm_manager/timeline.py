"""The GPU over time: memory per process and what happened, kept in memory (issue 24 item 3).

The GPU status API samples the card every ``ZT_GPU_TIMELINE_INTERVAL_S`` and keeps the last
``ZT_GPU_TIMELINE_HOURS`` (never more than ``MAX_SAMPLES`` samples, ``MAX_EVENTS`` events). The
events are derived from what the API itself sees, so nothing else has to report them: a vLLM
process (``ZT_VLLM_MATCH_KEYWORDS``) appearing is *started* (one already there at the first
reading is *running*: the API cannot tell when it started), disappearing *stopped*; its
``sleeping`` flag turning on is *slept*, off again *woke*; the papers Zotero servers say wait
for the card (``POST /waiting``) going from none to some is *waiting*, and back *served*.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from vllm_manager import procscan
from vllm_manager.gpu_model import GPUStatus
from vllm_manager.gpu_wait import holder_name

MAX_SAMPLES = 20_000
MAX_EVENTS = 2_000
#: Processes named in one sample; the smallest beyond are added up as "others".
MAX_PROCESSES = 12


class EventKind(StrEnum):
    STARTED = "started"  # a vLLM process appeared
    RUNNING = "running"  # a vLLM process was there at the first reading
    SLEPT = "slept"
    WOKE = "woke"
    STOPPED = "stopped"  # a vLLM process is gone
    WAITING = "waiting"  # papers began to wait for the card
    SERVED = "served"  # no paper waits any more


@dataclass(frozen=True)
class ProcessUse:
    name: str  # "vLLM", "ComfyUI", ... (``holder_name``), "others"
    kind: str  # "vllm" or "other"
    memory_mib: int
    pid: int | None = None


@dataclass(frozen=True)
class Sample:
    at: float  # epoch seconds
    memory_used_mib: int
    memory_total_mib: int
    processes: tuple[ProcessUse, ...]
    waiting: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "t": round(self.at, 3),
            "memory_used_mib": self.memory_used_mib,
            "memory_total_mib": self.memory_total_mib,
            "processes": [
                {"name": p.name, "kind": p.kind, "memory_mib": p.memory_mib, "pid": p.pid}
                for p in self.processes
            ],
            "waiting": self.waiting,
        }


@dataclass(frozen=True)
class TimelineEvent:
    at: float
    kind: EventKind
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"t": round(self.at, 3), "kind": self.kind.value, "text": self.text}


class Timeline:
    """Bounded samples and the events between them; feed it with :meth:`observe`."""

    def __init__(self, keywords: list[str], hours: float, interval_s: float) -> None:
        self._keywords = keywords
        self.interval_s = interval_s
        self.window_s = hours * 3600.0
        count = max(2, min(MAX_SAMPLES, int(self.window_s / interval_s) + 1))
        self.samples: deque[Sample] = deque(maxlen=count)
        self.events: deque[TimelineEvent] = deque(maxlen=MAX_EVENTS)
        self.counts: dict[EventKind, int] = dict.fromkeys(EventKind, 0)
        self._vllms: dict[int, bool] = {}  # pid -> sleeping
        self._first_reading = True
        self._waiting = 0

    def observe(self, status: GPUStatus | None, waiting: int, now: float | None = None) -> None:
        """One reading (``None``: the GPU could not be read: no sample, no event)."""
        at = time.time() if now is None else now
        if status is not None:
            self.samples.append(self._sample(status, waiting, at))
            self._vllm_events(status, at)
        if (waiting > 0) != (self._waiting > 0):
            if waiting > 0:
                plural = "s wait" if waiting != 1 else " waits"
                self._event(at, EventKind.WAITING, f"{waiting} paper{plural} for the GPU")
            else:
                self._event(at, EventKind.SERVED, "no paper waits for the GPU any more")
        self._waiting = waiting

    def since(self, after: float | None = None) -> dict[str, Any]:
        """What ``GET /timeline`` answers: samples and events newer than ``after`` (epoch).

        Compared as answered (to the millisecond): a client that passes back the newest ``t``
        it got must not get that sample again."""
        cut = float("-inf") if after is None else after
        return {
            "interval_s": self.interval_s,
            "window_s": self.window_s,
            "samples": [s.to_dict() for s in self.samples if round(s.at, 3) > cut],
            "events": [e.to_dict() for e in self.events if round(e.at, 3) > cut],
        }

    def _sample(self, status: GPUStatus, waiting: int, at: float) -> Sample:
        used = []
        for process in status.processes:
            if not process.on_gpu:
                continue
            vllm = procscan.matches(process.command, self._keywords)
            name = "vLLM" if vllm else holder_name(process.command)
            kind = "vllm" if vllm else "other"
            used.append(ProcessUse(name, kind, process.memory_mib, process.pid))
        used.sort(key=lambda p: p.memory_mib, reverse=True)
        if len(used) > MAX_PROCESSES:
            rest = sum(p.memory_mib for p in used[MAX_PROCESSES - 1 :])
            used = [*used[: MAX_PROCESSES - 1], ProcessUse("others", "other", rest)]
        return Sample(at, status.memory_used_mib, status.memory_total_mib, tuple(used), waiting)

    def _vllm_events(self, status: GPUStatus, at: float) -> None:
        now = {
            p.pid: p.sleeping
            for p in status.processes
            if procscan.matches(p.command, self._keywords)
        }
        first, self._first_reading = self._first_reading, False
        for pid, sleeping in now.items():
            before = self._vllms.get(pid)
            if before is None and first:
                self._event(at, EventKind.RUNNING, f"vLLM already running (pid {pid})")
                if sleeping:
                    self._event(at, EventKind.SLEPT, f"vLLM asleep (pid {pid})")
            elif before is None:
                self._event(at, EventKind.STARTED, f"vLLM started (pid {pid})")
                if sleeping:
                    self._event(at, EventKind.SLEPT, f"vLLM asleep (pid {pid})")
            elif sleeping and not before:
                self._event(at, EventKind.SLEPT, f"vLLM went to sleep (pid {pid})")
            elif before and not sleeping:
                self._event(at, EventKind.WOKE, f"vLLM woke up (pid {pid})")
        for pid in self._vllms.keys() - now.keys():
            self._event(at, EventKind.STOPPED, f"vLLM stopped (pid {pid})")
        self._vllms = now

    def _event(self, at: float, kind: EventKind, text: str) -> None:
        self.events.append(TimelineEvent(at, kind, text))
        self.counts[kind] += 1

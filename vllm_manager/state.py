"""The lifecycle of one vLLM endpoint, as its manager sees it."""

from __future__ import annotations

from enum import StrEnum


class VLLMState(StrEnum):
    UNKNOWN = "unknown"  # not checked yet
    DOWN = "down"  # last check: not answering, nothing being done about it
    WAITING_GPU = "waiting_gpu"  # another process holds the GPU, or its status is unknown
    STARTING = "starting"  # we launched vLLM, or wait for one that is loading
    READY = "ready"
    STOPPING = "stopping"
    SLEEPING = "sleeping"  # going to sleep: nothing is admitted until it is asleep
    ASLEEP = "asleep"  # our vLLM sleeps (level 1): ~1 GiB left on the GPU, wakes in seconds
    WAKING = "waking"
    FAILED = "failed"  # the last bring-up failed; the next ensure_ready() tries again
    CLOSED = "closed"

"""Gate: what a job needs of whoever brings the model up (one host's manager, or a pool).

``VLLMManager`` and ``vllm_manager.pool.HostPool`` both are one; the patient-job queue
(``vllm_manager.gpu_wait``) and the job service take either.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from common.progress import ProgressSink
from vllm_manager.decision import GPUDecision
from vllm_manager.gpu_model import GPUReading


class Gate(Protocol):
    async def ensure_ready(self, progress: ProgressSink = ...) -> None:
        """Return once the model can take requests (see ``VLLMManager.ensure_ready``)."""
        ...

    async def start_decision(self) -> tuple[GPUDecision, GPUReading | None]:
        """What ``ensure_ready`` would meet now, doing none of it."""
        ...

    def work(self) -> AbstractAsyncContextManager[None]:
        """Held while a translation runs: nothing is given back under it."""
        ...

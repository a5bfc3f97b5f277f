"""The GPU status data model: the JSON of the GPU status API's ``GET /status``.

Shared by the in-process probe, the HTTP API server, its client and ``decide()``. Other software
reads that JSON: fields are only ever added, never renamed or removed. Also the two protocols
the manager needs of a status source (``vllm_manager.gpu`` implements them), here so that a
manager that never looks at the GPU imports nothing of the probe.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, Field


class GPUProcess(BaseModel):
    """A process that holds a GPU, or a watched GPU service not (yet) on it."""

    pid: int
    command: str = Field(description="Full command line from /proc/PID/cmdline")
    memory_mib: int = 0
    on_gpu: bool = True
    gpu_uuid: str | None = None
    sleeping: bool = Field(
        default=False,
        description="A vLLM in sleep mode: what it holds is the ~1 GiB it leaves behind",
    )


class GPUInfo(BaseModel):
    index: int
    uuid: str
    name: str
    memory_used_mib: int
    memory_total_mib: int
    utilization_pct: int
    temperature_c: int
    processes: list[GPUProcess] = Field(default_factory=list)
    is_idle: bool = Field(False, description="No process on this GPU and memory below threshold")
    unavailable: list[str] = Field(
        default_factory=list,
        description="nvidia-smi fields reported as [N/A] (their values above are 0)",
    )


class GPUStatus(BaseModel):
    """Whole-host summary (all GPUs added up) plus the per-GPU list."""

    is_idle: bool = Field(
        description="No process holds the GPU and memory use is below the threshold, or the "
        "only holder is a sleeping vLLM (its residue does not count)"
    )
    memory_used_mib: int
    memory_total_mib: int
    memory_free_mib: int = Field(default=0, description="memory_total_mib - memory_used_mib")
    utilization_pct: int
    temperature_c: int
    processes: list[GPUProcess] = Field(default_factory=list)
    gpus: list[GPUInfo] = Field(default_factory=list)
    checked_at: datetime
    notes: list[str] = Field(
        default_factory=list, description="Human remarks: missing values, processes that left"
    )


class GPUReading(Protocol):
    """A status, or ``None`` and the reason it could not be read."""

    @property
    def status(self) -> GPUStatus | None: ...

    @property
    def reason(self) -> str: ...


class StatusSource(Protocol):
    """Where the manager reads the GPU status: ``read()`` never raises and never hangs."""

    async def read(self) -> GPUReading: ...

"""A real-GPU check of our nvidia-smi parsing and /proc scan (issue 11, item 8).

Run where an NVIDIA GPU, its driver and PyTorch are: ``python -m bench.gpu_check``. A child
Python whose command line carries a marker allocates ``ALLOC_MIB`` of GPU memory with PyTorch;
the in-process probe (the real ``nvidia-smi``) must then list it on the GPU with its full
command line and at least that much memory, and the whole-card figures must add up. Prints what
it saw; exit 0 when every check holds, 1 otherwise (2: no GPU or no PyTorch here).
Not part of ``make bench`` (the development machine has no GPU).
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid

from common.settings import load_settings
from vllm_manager.gpu import probe_gpu

ALLOC_MIB = 2048
CHILD = (
    "import sys, time, torch\n"
    "x = torch.empty({mib} * 1024 * 1024, dtype=torch.uint8, device='cuda')\n"
    "torch.cuda.synchronize()\n"
    "print('ready', flush=True)\n"
    "time.sleep(120)\n"
)


def main() -> int:
    marker = "zt-gpu-check-" + uuid.uuid4().hex[:8]
    code = CHILD.format(mib=ALLOC_MIB)
    child = subprocess.Popen(
        [sys.executable, "-c", code, marker], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        line = child.stdout.readline().decode().strip() if child.stdout else ""
        if line != "ready":
            err = child.stderr.read().decode()[-2000:] if child.stderr else ""
            print(f"the CUDA child did not start: {err}")
            return 2
        time.sleep(1.0)  # nvidia-smi's accounting lags the allocation a little
        settings = load_settings(gpu_watch_keywords=marker, vllm_match_keywords=marker)
        status = probe_gpu(settings)
        print(status.model_dump_json(indent=2))
        found = [p for p in status.processes if p.pid == child.pid]
        checks = {
            "child listed": bool(found),
            "on the GPU": bool(found) and found[0].on_gpu,
            "full command line": bool(found) and marker in found[0].command,
            "memory >= allocation": bool(found) and found[0].memory_mib >= ALLOC_MIB,
            "card use >= process": status.memory_used_mib >= (found[0].memory_mib if found else 0),
            "free = total - used": status.memory_free_mib
            == status.memory_total_mib - status.memory_used_mib,
            "not idle": not status.is_idle,
            "not sleeping": not any(p.sleeping for p in found),
        }
        for name, ok in checks.items():
            print(f"{'ok  ' if ok else 'FAIL'} {name}")
        return 0 if all(checks.values()) else 1
    finally:
        child.kill()
        child.wait()


if __name__ == "__main__":
    sys.exit(main())

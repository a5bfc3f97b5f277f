#!/usr/bin/env python3
"""A stand-in for ComfyUI: a process that only exists, with ComfyUI's command-line shape.

Standard library only. Tests start it through a ``ComfyUI/main.py`` symlink
(``python3 /tmp/.../ComfyUI/main.py --listen 127.0.0.1 --port 8188``), so its
``/proc/PID/cmdline`` looks like the real one; the fake nvidia-smi then reports it as a GPU
process by pid. It holds nothing and waits until it is terminated.
"""

from __future__ import annotations

import signal
import sys
import time


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())

"""NoLauncher (``ZT_MANAGER=none``): vLLM is somebody else's business; we only check its health.

With it the manager's ``ensure_ready()`` returns when vLLM is healthy and otherwise raises
``LLMUnavailableError`` ("vLLM at URL is not answering; ZT_MANAGER=none, start it yourself").
Nothing is launched, signalled or stopped, and the GPU is never consulted.
"""

from __future__ import annotations

import signal
from pathlib import Path

from common.settings import Settings


class NoLauncher:
    """The null :class:`~vllm_manager.launcher.Launcher`: never launches, owns no vLLM."""

    kind = "none"
    launches = False
    log_location = "(not managed)"

    def __init__(self, settings: Settings) -> None:
        self.lease_dir: Path = settings.manager_dir

    async def launch(self, command: str) -> int:
        raise AssertionError("ZT_MANAGER=none never launches vLLM")

    async def our_pid(self) -> int | None:
        return None

    async def is_alive(self, pid: int) -> bool:
        return False

    async def signal(self, pid: int, sig: signal.Signals) -> None:
        raise AssertionError("ZT_MANAGER=none never signals vLLM")

    async def log_tail(self, lines: int) -> str:
        return ""

    async def forget(self) -> None:
        return None

    async def mem_available_mib(self) -> int | None:
        return None

    async def aclose(self) -> None:
        return None

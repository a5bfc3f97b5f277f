"""ZT_MANAGER=none: vLLM is somebody else's business; we only check its health.

``ensure_ready()`` returns when vLLM is healthy and otherwise raises ``LLMUnavailableError``
("vLLM at URL is not answering; ZT_MANAGER=none, start it yourself"). Nothing is launched,
signalled or stopped, and the GPU is never consulted.
"""

from __future__ import annotations

import signal

from vllm_manager.manager import VLLMManager


class NoneVLLMManager(VLLMManager):
    """Health check only (the null object of the manager family)."""

    kind = "none"
    launches = False

    async def _launch(self) -> int:
        raise AssertionError("ZT_MANAGER=none never launches vLLM")

    async def _our_pid(self) -> int | None:
        return None

    async def _is_alive(self, pid: int) -> bool:
        return False

    async def _signal(self, pid: int, sig: signal.Signals) -> None:
        raise AssertionError("ZT_MANAGER=none never signals vLLM")

    async def _log_tail(self, lines: int) -> str:
        return ""

    async def _forget(self) -> None:
        return None

    @property
    def log_location(self) -> str:
        return "(not managed)"

"""Launcher: how vLLM is started, watched and signalled on the host it runs on.

The manager (``vllm_manager.manager``) is one class composed with a launcher: ``LocalLauncher``
(this host, ``vllm_manager.local``), ``JupyterLauncher`` (another host through its JupyterLab
terminals, ``vllm_manager.remote``) or ``NoLauncher`` (``ZT_MANAGER=none``: never launches,
``vllm_manager.none``). Every launch is the same detached script (``vllm_manager.detach``):
vLLM runs in its own session, writes its own pid file and log, and outlives our server and the
terminal that started it.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Protocol

from vllm_manager import detach

#: The launch script returns once the child wrote its pid file (``detach.PID_WAIT_S``).
LAUNCH_TIMEOUT_S = detach.PID_WAIT_S + 20.0


class Launcher(Protocol):
    """One host's way of running vLLM. Failures to reach the host raise ``JupyterError``."""

    @property
    def kind(self) -> str:
        """Name used in status output and ``ZT_MANAGER``: "local", "remote" or "none"."""

    @property
    def launches(self) -> bool:
        """False for a launcher that never starts vLLM (the manager then only checks health)."""

    @property
    def lease_dir(self) -> Path:
        """Where the start lease lives: on THIS host, since it guards launches from here."""

    @property
    def log_location(self) -> str:
        """Where the launched vLLM's log is, for messages ("host:path" for another host)."""

    async def launch(self, command: str) -> int:
        """Start ``command`` detached; return its pid once it wrote its pid file.

        Raises ``VLLMStartError`` when the launch script reports no pid.
        """

    async def our_pid(self) -> int | None:
        """The pid of a live vLLM we (or a previous run of ours) launched, else None."""

    async def is_alive(self, pid: int) -> bool:
        """Whether the launched process ``pid`` still runs (a zombie does not)."""

    async def signal(self, pid: int, sig: signal.Signals) -> None:
        """Send ``sig`` to the process group of ``pid`` (vLLM's engine core is a child)."""

    async def log_tail(self, lines: int) -> str:
        """The last lines of the launched vLLM's log ('' if none)."""

    async def forget(self) -> None:
        """Remove the pid file of a vLLM that is gone, so a recycled pid is never signalled."""

    async def mem_available_mib(self) -> int | None:
        """MemAvailable of the host vLLM runs on (level-1 sleep puts the weights there)."""

    async def aclose(self) -> None:
        """Release what the launcher holds (a Jupyter client). Never stops vLLM."""

"""LocalLauncher: vLLM on this host.

Launches through a JupyterLab terminal on this host when ``ZT_JUPYTER_URL`` is set (vLLM then
runs with that Jupyter's environment and user), otherwise directly as a detached process. Either
way the launch is the same detached script (``detach.launch_script``) and vLLM survives our
restarts; everything after the launch (alive?, signals, log) happens in-process through
``/proc``, since the pid and log files are on this host: ``settings.manager_dir``.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import httpx

from common.settings import Settings
from vllm_manager import detach
from vllm_manager.jupyter import JupyterTerminals
from vllm_manager.launcher import LAUNCH_TIMEOUT_S
from vllm_manager.sleep import local_mem_available_mib


class LocalLauncher:
    """A :class:`~vllm_manager.launcher.Launcher` for this host."""

    kind = "local"
    launches = True

    def __init__(self, settings: Settings, *, http_client: httpx.AsyncClient | None = None) -> None:
        """``http_client`` is borrowed for the local Jupyter, if any (else it opens its own)."""
        self.settings = settings
        self.lease_dir: Path = settings.manager_dir
        self.pid_file: Path = settings.manager_dir / "vllm.pid"
        self.log_file: Path = settings.manager_dir / "vllm.log"
        self._terminals: JupyterTerminals | None = None
        if settings.jupyter_url:
            token = settings.jupyter_token
            self._terminals = JupyterTerminals(
                settings.jupyter_url,
                token.get_secret_value() if token else None,
                http_client=http_client,
            )

    @property
    def log_location(self) -> str:
        return str(self.log_file)

    async def launch(self, command: str) -> int:
        script = detach.launch_script(command, str(self.pid_file), str(self.log_file))
        if self._terminals is not None:
            result = await self._terminals.run(
                self.settings.jupyter_terminal, script, timeout_s=LAUNCH_TIMEOUT_S
            )
            return detach.parse_launch(result.exit_code, result.output)
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            script,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await proc.communicate()
        return detach.parse_launch(proc.returncode or 0, out.decode(errors="replace"))

    async def our_pid(self) -> int | None:
        pid = detach.read_pid_file(self.pid_file)
        if pid is None or not detach.group_alive_local(pid):
            return None
        return pid

    async def is_alive(self, pid: int) -> bool:
        return detach.group_alive_local(pid)

    async def signal(self, pid: int, sig: signal.Signals) -> None:
        detach.signal_group_local(pid, sig)

    async def log_tail(self, lines: int) -> str:
        return detach.tail_local(self.log_file, lines)

    async def forget(self) -> None:
        self.pid_file.unlink(missing_ok=True)

    async def mem_available_mib(self) -> int | None:
        return local_mem_available_mib()

    async def aclose(self) -> None:
        if self._terminals is not None:
            await self._terminals.aclose()

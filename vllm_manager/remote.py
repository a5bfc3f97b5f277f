"""JupyterLauncher: vLLM on another host, reached through its JupyterLab's terminals.

Every operation is a short ``/bin/sh`` script (``vllm_manager.detach``) typed into the named
terminal ``ZT_JUPYTER_TERMINAL`` at ``ZT_JUPYTER_URL``. The pid and log files live on that host,
in ``ZT_VLLM_WORKDIR`` (default ``$HOME/.local/share/zotero-translate/vllm`` there; ``$HOME``
expands on the remote host). The start lease stays in our own data dir (``data_dir/vllm``).
"""

from __future__ import annotations

import signal
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from common.errors import ConfigError
from common.settings import Settings
from vllm_manager import detach
from vllm_manager.jupyter import JupyterTerminals
from vllm_manager.launcher import LAUNCH_TIMEOUT_S
from vllm_manager.sleep import meminfo_script, parse_meminfo

DEFAULT_REMOTE_WORKDIR = "$HOME/.local/share/zotero-translate/vllm"


class JupyterLauncher:
    """A :class:`~vllm_manager.launcher.Launcher` for a host reached through JupyterLab."""

    kind = "remote"
    launches = True

    def __init__(self, settings: Settings, *, http_client: httpx.AsyncClient | None = None) -> None:
        """Raises ``ConfigError`` without ``ZT_JUPYTER_URL``. ``http_client`` is borrowed (else
        the terminals client opens its own)."""
        if not settings.jupyter_url:
            raise ConfigError("ZT_MANAGER=remote needs ZT_JUPYTER_URL (and ZT_JUPYTER_TOKEN)")
        self.settings = settings
        # The lease guards launches from this host, so it stays here even when the pid and log
        # files (ZT_VLLM_WORKDIR) name a directory of the remote host.
        self.lease_dir: Path = settings.data_dir / "vllm"
        workdir = (settings.vllm_workdir or DEFAULT_REMOTE_WORKDIR).rstrip("/")
        self.pid_file = f"{workdir}/vllm.pid"
        self.log_file = f"{workdir}/vllm.log"
        token = settings.jupyter_token
        self.terminals = JupyterTerminals(
            settings.jupyter_url,
            token.get_secret_value() if token else None,
            http_client=http_client,
        )
        self._host = urlsplit(settings.jupyter_url).hostname or settings.jupyter_url

    @property
    def log_location(self) -> str:
        return f"{self._host}:{self.log_file}"

    async def _sh(self, script: str, timeout_s: float | None = None) -> str:
        result = await self.terminals.run(
            self.settings.jupyter_terminal, script, timeout_s=timeout_s
        )
        return result.output

    async def launch(self, command: str) -> int:
        script = detach.launch_script(command, self.pid_file, self.log_file)
        result = await self.terminals.run(
            self.settings.jupyter_terminal, script, timeout_s=LAUNCH_TIMEOUT_S
        )
        return detach.parse_launch(result.exit_code, result.output)

    async def our_pid(self) -> int | None:
        return detach.parse_pid(await self._sh(detach.our_pid_script(self.pid_file)))

    async def is_alive(self, pid: int) -> bool:
        return (await self._sh(detach.group_alive_script(pid))).strip() == "alive"

    async def signal(self, pid: int, sig: signal.Signals) -> None:
        await self._sh(detach.signal_script(pid, sig))

    async def log_tail(self, lines: int) -> str:
        return await self._sh(detach.tail_script(self.log_file, lines))

    async def forget(self) -> None:
        await self._sh(detach.forget_script(self.pid_file))

    async def mem_available_mib(self) -> int | None:
        # Level 1 puts the weights in the RAM of the Jupyter host, where vLLM runs.
        return parse_meminfo(await self._sh(meminfo_script()))

    async def aclose(self) -> None:
        await self.terminals.aclose()

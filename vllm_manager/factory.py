"""create_manager(settings, probe=...): the manager ``ZT_MANAGER`` asks for."""

from __future__ import annotations

import httpx

from common.settings import ManagerKind, Settings
from vllm_manager.launcher import Launcher
from vllm_manager.manager import VLLMManager
from vllm_manager.none import NoLauncher
from vllm_manager.sleep_cycle import ReadinessProbe


def create_manager(
    settings: Settings, *, probe: ReadinessProbe, http_client: httpx.AsyncClient | None = None
) -> VLLMManager:
    """Build (not start) the manager: launcher ``none``, ``local`` or ``remote``.

    ``probe`` confirms a woken vLLM with one one-token request; it is the LLM client's business,
    so whoever composes the application passes it in (``vllm_manager`` imports nothing of the
    translation code). ``http_client`` is shared for vLLM health checks, the GPU status API and
    Jupyter; when omitted the manager opens its own and closes it in ``aclose()``. Raises
    ``ConfigError`` when ``remote`` lacks ``ZT_JUPYTER_URL``.
    """
    if settings.manager is ManagerKind.NONE:
        return VLLMManager(settings, NoLauncher(settings), probe=probe, http_client=http_client)
    # Imported here so ZT_MANAGER=none needs nothing of the GPU or Jupyter code.
    from vllm_manager.gpu import make_status_source

    source = make_status_source(settings, http_client=http_client)
    launcher: Launcher
    if settings.manager is ManagerKind.REMOTE:
        from vllm_manager.remote import JupyterLauncher

        launcher = JupyterLauncher(settings, http_client=http_client)
    else:
        from vllm_manager.local import LocalLauncher

        launcher = LocalLauncher(settings, http_client=http_client)
    return VLLMManager(
        settings, launcher, probe=probe, http_client=http_client, status_source=source
    )

"""create_manager(settings, probe=...): the manager ``ZT_MANAGER`` asks for (``auto`` decided)."""

from __future__ import annotations

import httpx

from common.settings import ManagerKind, Settings
from vllm_manager.choice import ManagerChoice, choose_manager
from vllm_manager.launcher import Launcher
from vllm_manager.manager import VLLMManager
from vllm_manager.none import NoLauncher
from vllm_manager.sleep_cycle import ReadinessProbe


def create_manager(
    settings: Settings,
    *,
    probe: ReadinessProbe,
    http_client: httpx.AsyncClient | None = None,
    choice: ManagerChoice | None = None,
) -> VLLMManager:
    """Build (not start) the manager: launcher ``none``, ``local`` or ``remote``.

    ``ZT_MANAGER=auto`` is decided here (``vllm_manager.choice``: nvidia-smi and a look at the
    vLLM command, blocking for a few seconds at most) unless ``choice`` is given.

    ``probe`` confirms a woken vLLM with one one-token request; it is the LLM client's business,
    so whoever composes the application passes it in (``vllm_manager`` imports nothing of the
    translation code). ``http_client`` is shared for vLLM health checks, the GPU status API and
    Jupyter; when omitted the manager opens its own and closes it in ``aclose()``. Raises
    ``ConfigError`` when ``remote`` lacks ``ZT_JUPYTER_URL``.
    """
    choice = choice or choose_manager(settings)
    settings = settings.model_copy(update={"manager": choice.kind})
    if choice.kind is ManagerKind.NONE:
        return VLLMManager(
            settings, NoLauncher(settings), probe=probe, http_client=http_client, choice=choice
        )
    # Imported here so ZT_MANAGER=none needs nothing of the GPU or Jupyter code.
    from vllm_manager.gpu import make_status_source

    source = make_status_source(settings, http_client=http_client)
    launcher: Launcher
    if choice.kind is ManagerKind.REMOTE:
        from vllm_manager.remote import JupyterLauncher

        launcher = JupyterLauncher(settings, http_client=http_client)
    else:
        from vllm_manager.local import LocalLauncher

        launcher = LocalLauncher(settings, http_client=http_client)
    return VLLMManager(
        settings,
        launcher,
        probe=probe,
        http_client=http_client,
        status_source=source,
        choice=choice,
    )

"""create_manager(settings): the manager ``ZT_MANAGER`` asks for."""

from __future__ import annotations

import httpx

from common.settings import ManagerKind, Settings
from vllm_manager.manager import VLLMManager
from vllm_manager.none import NoneVLLMManager


def create_manager(
    settings: Settings, *, http_client: httpx.AsyncClient | None = None
) -> VLLMManager:
    """Build (not start) the manager: ``none``, ``local`` or ``remote``.

    ``http_client`` is shared for vLLM health checks, the GPU status API and Jupyter; when
    omitted the manager opens its own and closes it in ``aclose()``. Raises ``ConfigError``
    when ``remote`` lacks ``ZT_JUPYTER_URL``.
    """
    if settings.manager is ManagerKind.NONE:
        return NoneVLLMManager(settings, http_client=http_client)
    # Imported here so ZT_MANAGER=none needs nothing of the GPU or Jupyter code.
    from vllm_manager.gpu import make_status_source

    source = make_status_source(settings, http_client=http_client)
    if settings.manager is ManagerKind.REMOTE:
        from vllm_manager.remote import RemoteVLLMManager

        return RemoteVLLMManager(settings, http_client=http_client, status_source=source)
    from vllm_manager.local import LocalVLLMManager

    return LocalVLLMManager(settings, http_client=http_client, status_source=source)

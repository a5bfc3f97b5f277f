"""create_manager(settings): the vLLM manager as the server and the CLI use it.

The one place where ``vllm_manager`` and ``translation`` meet: the manager confirms a woken vLLM
with one one-token request, and how to send one (TranslateGemma's chat content part, or the
rendered prompt for a vLLM that rejects it) is the LLM client's business. So the probe is built
here from the client and passed in; neither package imports the other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx

from common.settings import Settings
from vllm_manager import factory
from vllm_manager.manager import VLLMManager


def create_manager(
    settings: Settings, *, http_client: httpx.AsyncClient | None = None
) -> VLLMManager:
    """Build (not start) the manager ``ZT_MANAGER`` asks for, with the LLM client's probe.

    ``http_client`` is shared by the manager and the probe; when omitted each opens its own
    and closes it. Raises ``ConfigError`` when ``remote`` lacks ``ZT_JUPYTER_URL``.
    """
    return factory.create_manager(
        settings, probe=_probe(settings, http_client), http_client=http_client
    )


def _probe(
    settings: Settings, http_client: httpx.AsyncClient | None
) -> Callable[[], Awaitable[str | None]]:
    """The LLM client's readiness probe, its module imported on the first call."""

    async def probe() -> str | None:
        # Only a wake confirms a vLLM this way: ``vllm status|start|stop|sleep`` never call it,
        # and the client's imports (openai, PyMuPDF) were most of such a command's start-up.
        from translation.model.llm import readiness_probe

        return await readiness_probe(settings, http_client)()

    return probe

"""create_manager(settings): the vLLM manager as the server and the CLI use it.

The one place where ``vllm_manager`` and ``translation`` meet: the manager confirms a woken vLLM
with one one-token request and a known-answer check (``translation.model.known_answer``,
recorded before the first sleep), and how to send them (TranslateGemma's chat content part, or the
rendered prompt for a vLLM that rejects it) is the LLM client's business. So the probe is built
here from the client and passed in; neither package imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import httpx

from common.settings import Settings
from vllm_manager import factory
from vllm_manager.manager import VLLMManager

if TYPE_CHECKING:
    from translation.model.known_answer import KnownAnswer


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


class _Probe:
    """The known-answer readiness probe (``translation.model.known_answer``), its module
    imported on the first use: only a wake or a sleep uses it, and ``vllm status|start|stop``
    never do (the client's imports, openai and PyMuPDF, were most of such a command's start-up).
    """

    def __init__(self, settings: Settings, http_client: httpx.AsyncClient | None) -> None:
        self._settings = settings
        self._http = http_client
        self._real: KnownAnswer | None = None

    def _probe(self) -> KnownAnswer:
        if self._real is None:
            from translation.model.known_answer import KnownAnswer

            self._real = KnownAnswer(self._settings, self._http)
        return self._real

    async def __call__(self) -> str | None:
        return await self._probe()()

    async def remember(self) -> None:
        await self._probe().remember()

    @property
    def counts(self) -> Mapping[str, int]:
        return self._real.counts if self._real is not None else {}


def _probe(settings: Settings, http_client: httpx.AsyncClient | None) -> _Probe:
    return _Probe(settings, http_client)

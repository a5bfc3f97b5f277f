"""The translation engine a process runs (``serve`` and ``translate`` alike).

One GPU host: its manager, ONE limiter for the whole process (``ZT_CONCURRENCY_MODE``) and the
translator on them. Several (``ZT_HOSTS``): the pool, its dispatcher (the limiter above every
host's own) and the translator routing through it. Either way the caller gets one gate to
hold while it works and one ``aclose`` for all of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from common.hosts import plan_hosts
from common.settings import Settings
from translation.model.limiter import Limiter, make_limiter
from translation.pipeline import Translator
from vllm_manager.gate import Gate
from vllm_manager.manager import VLLMManager
from zotero_server.gpu_hosts import GPUHosts, build_gpu_hosts
from zotero_server.manager_factory import create_manager


def shared_http(settings: Settings) -> httpx.AsyncClient:
    """The HTTP client an engine's parts share for their periodic calls: health checks,
    ``/metrics`` polls, the GPU status API and Jupyter (httpx's default connection caps).
    LLM answers never go through it: each host's ``LLMClient`` keeps its own connection pool,
    so a busy vLLM's answers cannot queue its health check or its limiter's signals behind
    them, and one pool's bookkeeping (a pass over its connections per request) stays the size
    of one host's limit."""
    return httpx.AsyncClient(timeout=httpx.Timeout(settings.llm_timeout_s))


@dataclass
class Engine:
    """What :func:`start_engine` started. ``manager`` is the one host's (the pool's first with
    several: ``vllm start|stop`` and single-host displays); ``hosts`` is None for one host."""

    translator: Translator
    gate: Gate
    manager: VLLMManager
    limiter: Limiter
    hosts: GPUHosts | None

    async def aclose(self) -> None:
        await self.translator.aclose()
        await self.limiter.aclose()
        await (self.hosts.pool.aclose() if self.hosts is not None else self.manager.aclose())


async def start_engine(settings: Settings, http: httpx.AsyncClient) -> Engine:
    """Build and start the engine ``settings`` describe, on the shared ``http`` client."""
    hosts = build_gpu_hosts(settings, http)
    if hosts is None:
        one = plan_hosts(settings)[0].settings  # the settings, or a lone [[hosts]]
        manager = create_manager(one, http_client=http)
        await manager.start()
        limiter = make_limiter(one, http_client=http, launch_batch=manager.launch_batch)
        translator = Translator.from_settings(
            one, manager.ensure_ready, http_client=http, limiter=limiter
        )
        return Engine(translator, manager, manager, limiter, None)
    await hosts.pool.start()
    translator = Translator.from_settings(
        settings, hosts.pool.ensure_ready, http_client=http, router=hosts.dispatcher
    )
    return Engine(translator, hosts.pool, hosts.pool.primary, hosts.dispatcher, hosts)

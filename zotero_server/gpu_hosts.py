"""GPUHosts: several GPU hosts composed into one pool and one dispatcher.

The place where ``vllm_manager.pool`` (which hosts are ready, which to bring up) meets
``translation.model.dispatch`` (where each request goes); neither imports the other. Built
only when the settings name two hosts or more (``ZT_HOSTS``); one host is the plain manager,
limiter and client, exactly as before there were several.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from common.hosts import plan_hosts
from common.redact import mask_secrets
from common.settings import Settings
from translation.model.adaptive_limiter import AdaptiveLimiter
from translation.model.dispatch import Dispatcher, Lane
from translation.model.limiter import FixedLimiter, make_limiter
from translation.model.llm import LLMClient
from vllm_manager.pool import Host, HostPool
from zotero_server.manager_factory import create_manager

#: Attempts of one request on one host: a host that does not answer is left for another soon
#: (the other hosts are the retry), not after ``ZT_LLM_MAX_ATTEMPTS`` backed-off tries.
HOST_ATTEMPTS = 3


@dataclass
class GPUHosts:
    pool: HostPool
    dispatcher: Dispatcher

    def view(self) -> list[dict[str, Any]]:
        """Each host as ``/health``, the page and ``/metrics`` show it: the pool's word on it
        (state, holder, manager, URL, weight) and the dispatcher's (whether it takes requests,
        its limit, requests in flight, answered and lost there)."""
        rows = []
        for host in self.pool.hosts:
            lane = self.dispatcher.lane(host.name)
            row = host.to_dict()
            row["url"] = mask_secrets(row["url"])
            if row["last_error"]:
                row["last_error"] = mask_secrets(row["last_error"])
            row.update(
                takes_requests=lane.ready,
                limit=lane.limiter.limit,
                in_flight=lane.in_flight,
                answered=lane.answered,
                lost=lane.failed,
            )
            rows.append(row)
        return rows


def build_gpu_hosts(settings: Settings, http_client: httpx.AsyncClient) -> GPUHosts | None:
    """The pool and dispatcher of ``settings.hosts`` (built, not started); None for one host.

    Each host gets its own manager, LLM client and limiter from its own settings
    (``common.hosts``). Raises ``ConfigError`` as ``create_manager`` and ``make_limiter`` do.
    """
    plans = plan_hosts(settings)
    if len(plans) < 2:
        return None
    lanes, hosts = [], []
    for plan in plans:
        own = plan.settings.model_copy(
            update={"llm_max_attempts": min(HOST_ATTEMPTS, plan.settings.llm_max_attempts)}
        )
        manager = create_manager(plan.settings, http_client=http_client)
        limiter = make_limiter(own, http_client=http_client, launch_batch=manager.launch_batch)
        assert isinstance(limiter, FixedLimiter | AdaptiveLimiter)  # what make_limiter makes
        lanes.append(
            Lane(
                name=plan.name,
                llm=LLMClient.from_settings(own),  # its own connection pool, not http_client
                limiter=limiter,
                weight=plan.weight,
            )
        )
        hosts.append(
            Host(
                name=plan.name,
                manager=manager,
                weight=plan.weight,
                wake_s=plan.wake_s,
                start_s=plan.start_s,
            )
        )
    dispatcher = Dispatcher(lanes)

    def demand() -> tuple[int, float]:
        now = dispatcher.demand()
        return now.queued, now.drain_s

    pool = HostPool(
        hosts,
        poll_s=settings.gpu_poll_s,
        wait_s=settings.gpu_wait_s,
        on_ready=dispatcher.set_ready,
        demand=demand,
    )
    dispatcher.on_lost = pool.lost
    return GPUHosts(pool, dispatcher)

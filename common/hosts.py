"""The GPU hosts the settings describe: each one's own ``Settings``, derived once.

A host (``HostConfig``, a ``[[hosts]]`` table or an entry of ``ZT_HOSTS``) names only what
differs on it; everything else is the top-level setting. Without ``hosts`` the top-level
settings are the one host, named ``default``, exactly as before there were several.
Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from common.settings import HostConfig, Settings

#: The name of the one host of settings without ``hosts``.
DEFAULT_HOST = "default"

#: Keys of ``HostConfig`` that stand for the top-level setting of the same name.
_PER_HOST = (
    "llm_base_url",
    "manager",
    "jupyter_url",
    "jupyter_token",
    "jupyter_terminal",
    "gpu_api_url",
    "gpu_api_token",
    "vllm_command",
    "vllm_workdir",
    "vllm_match_keywords",
    "gpu_watch_keywords",
    "nvidia_smi",
    "llm_api_key",
    "concurrency",
)


@dataclass(frozen=True)
class HostPlan:
    """One host as the pool runs it: its name, its own settings and how to weigh it."""

    name: str
    settings: Settings
    weight: float = 1.0
    wake_s: float = HostConfig.model_fields["wake_s"].default
    start_s: float = HostConfig.model_fields["start_s"].default


def plan_hosts(settings: Settings) -> list[HostPlan]:
    """The hosts of ``settings``, in their configured order (the first one is the primary:
    the one ``vllm start|stop`` and the single-host displays address).

    A host's leases, pid and log files go to its own folder (``vllm_workdir`` if it sets one,
    else ``<data dir>/vllm/<name>``): two hosts never share a start lease.
    """
    if not settings.hosts:
        return [HostPlan(DEFAULT_HOST, settings)]
    plans = []
    for host in settings.hosts:
        update: dict[str, Any] = {
            key: value
            for key in _PER_HOST
            if (value := getattr(host, key)) is not None and key in host.model_fields_set
        }
        update["llm_base_url"] = host.llm_base_url
        if host.vllm_workdir is None:
            update["vllm_workdir"] = str(settings.data_dir / "vllm" / host.name)
        plans.append(
            HostPlan(
                name=host.name,
                settings=settings.model_copy(update=update),
                weight=host.weight,
                wake_s=host.wake_s,
                start_s=host.start_s,
            )
        )
    return plans

"""Services: the long-lived parts the routes reach through ``app.state.services``.

Built once by the lifespan (``zotero_server.lifespan``) and closed by it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from common.language import LANGUAGES
from common.settings import Settings
from translation.model.glossary import Glossary
from translation.pipeline import Translator
from vllm_manager.gpu_wait import GPUWaitQueue
from vllm_manager.manager import VLLMManager
from zotero_server import __version__
from zotero_server.events import EventBus
from zotero_server.files import OutputStore, UploadStore
from zotero_server.gpu_hosts import GPUHosts
from zotero_server.http_errors import BusyError
from zotero_server.job_service import JobService
from zotero_server.jobs import JobRegistry
from zotero_server.metrics import ServerMetrics
from zotero_server.previews import PreviewBoard
from zotero_server.server_status import ServerStatus, read_status

#: /health and the page never wait longer than this for the vLLM/GPU status.
STATUS_TIMEOUT_S = 2.0
#: ``Retry-After`` when ``ZT_MAX_UPLOADS`` uploads are being read: one upload takes seconds.
UPLOAD_RETRY_S = 5.0


@dataclass
class Services:
    """What the routes reach through ``app.state.services``."""

    settings: Settings
    bus: EventBus
    registry: JobRegistry
    outputs: OutputStore
    uploads: UploadStore
    translator: Translator
    #: The one host's manager; with several hosts, the first one's (``pool`` has them all).
    manager: VLLMManager
    sse_ping_s: float
    #: Runs each job's work (translate, derive and store its files).
    jobs: JobService
    #: Where async jobs wait for a busy GPU (issue 16); sync requests use the manager's wait.
    gpu_wait: GPUWaitQueue | None = None
    #: The last read of the manager (``refresh_status``).
    status: ServerStatus = field(default_factory=ServerStatus)
    uploading: int = 0
    metrics: ServerMetrics = field(default_factory=ServerMetrics)
    #: ``ZT_GLOSSARY``; a request's own glossary extends it (its entries win).
    glossary: Glossary | None = None
    #: Each job's pages as they are typeset (``zotero_server.previews``).
    previews: PreviewBoard | None = None
    #: Several GPU hosts (``ZT_HOSTS``): their pool and dispatcher; None for one.
    hosts: GPUHosts | None = None

    @contextmanager
    def upload_slot(self) -> Iterator[None]:
        """One of ``ZT_MAX_UPLOADS`` places for reading and checking an upload; ``BusyError``
        (503) at once when none is free. Event-loop only, so a counter is enough."""
        if self.uploading >= self.settings.max_uploads:
            raise BusyError(
                f"{self.uploading} uploads are being read already (ZT_MAX_UPLOADS);"
                " try again in a few seconds",
                retry_after_s=UPLOAD_RETRY_S,
            )
        self.uploading += 1
        try:
            yield
        finally:
            self.uploading -= 1

    async def refresh_status(self) -> ServerStatus:
        """vLLM and GPU state from the manager, bounded by ``STATUS_TIMEOUT_S``; never raises."""
        status = await read_status(self.manager, self.gpu_wait, STATUS_TIMEOUT_S)
        if self.hosts is not None:
            # A fresh look (the pool's own watcher looks only while papers translate).
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.hosts.pool.refresh(), STATUS_TIMEOUT_S)
            status = replace(status, hosts=self.hosts.view())
        self.status = status
        return status

    def snapshot(self, job_id: str | None = None) -> dict[str, Any]:
        """The SSE ``snapshot`` event: everything a page needs to draw itself from nothing."""
        if job_id is not None:
            job = self.registry.get(job_id)
            return {"job": job.to_task() if job else None}
        return {
            "version": __version__,
            "jobs": [job.to_task() for job in self.registry.all_jobs()],
            "files": self.outputs.names(),
            "server": self.status.to_dict(),
            "maxJobs": self.settings.max_jobs,
            "defaults": {
                "sourceLang": self.settings.source_lang.code,
                "targetLang": self.settings.target_lang.code,
                "glossaryTerms": len(self.glossary) if self.glossary else 0,
            },
            # The page's From/To pick lists: every language the model covers, code and name.
            "languages": [{"code": code, "name": name} for code, name in LANGUAGES.items()],
        }

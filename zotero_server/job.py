"""Job: one job's state, its lifecycle (``Stage``, ``Ending``) and what it looks like outside.

Outside, a job is the plugin's task object (``to_task``: ``/api/tasks``, ``/api/history``, the
event stream) and a record in the job store (``to_record``/``from_record``, ``read_back``). The
job registry (``zotero_server.jobs``) owns every change of a job's state.

A queued job's task says its ``position`` (1-based among jobs not yet started); a translating one
its ``etaSeconds``, from its own paragraph rate since it began translating (null until one
paragraph came back: no guess from other papers).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from common.errors import ZTError
from common.progress import Progress, Stage
from zotero_server.http_errors import error_type_of, public_message
from zotero_server.job_store import JobStore

log = logging.getLogger(__name__)

# The words of a task's ``status`` the plugin matches: running (a translation; a crop or other
# processing), done, failed. History items say "success"/"failed" instead.
ACTIVE_TRANSLATE, ACTIVE_PROCESS, DONE_WORD, FAILED_WORD = "开始翻译", "开始处理", "完成", "失败"

STAGE_WORDS = {
    Stage.QUEUED: "queued",
    Stage.WAITING_GPU: "waiting for GPU",
    Stage.STARTING_LLM: "starting the LLM",
    Stage.TRANSLATING: "translating",
    Stage.RENDERING: "rendering",
    Stage.DONE: "done",
    Stage.FAILED: "failed",
}


def percent_for(stage: Stage, done: int, total: int) -> float:
    """The plugin's 0-100 progress: translating fills 5..90, the rest are fixed marks."""
    if stage is Stage.TRANSLATING:
        return 5.0 + 85.0 * (done / total if total > 0 else 0.0)
    return {
        Stage.QUEUED: 0.0,
        Stage.WAITING_GPU: 1.0,
        Stage.STARTING_LLM: 3.0,
        Stage.RENDERING: 92.0,
        Stage.DONE: 100.0,
    }.get(stage, 0.0)


class RecordedError(ZTError):
    """A job's failure as an earlier run of the server recorded it: its message and type."""

    def __init__(self, message: str, error_type: str) -> None:
        super().__init__(message)
        self.error_type = error_type


#: The record's layout; a record of another version is not read back.
RECORD_VERSION = 1


class Ending(Enum):
    """How a job is going to end, decided once, on the loop, by whoever comes first."""

    #: Its work decides.
    OPEN = "open"
    #: ``JobRegistry.cancel`` won: it ends "cancelled", with no outputs.
    CANCELLED = "cancelled"
    #: It ends failed (its work raised, or its record could not be written).
    FAILED = "failed"
    #: Its work claimed its outputs or returned: it ends done unless writing them fails.
    DONE = "done"


def _iso(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds") if ts else None


@dataclass(eq=False)
class Job:
    """One job's state. ``config`` is the summary shown to the plugin and the page."""

    file_name: str
    operation: str
    config: dict[str, Any]
    model: str = ""
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    created_at: float = field(default_factory=time.time)
    stage: Stage = Stage.QUEUED
    message: str = "queued"
    done: int = 0
    total: int = 0
    percent: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    files: list[str] = field(default_factory=list)
    #: Said with the final message ("references kept as they are: pages 9-11").
    note: str = ""
    output_dir: str = ""
    error: BaseException | None = None
    finished_event: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    #: What the server needs to run the job again after a restart (the parsed request without
    #: the PDF, which waits in the upload store); JSON. Empty: the job is never resumed.
    spec: dict[str, Any] = field(default_factory=dict)
    #: Whether a stop leaves this job to run again at the next start (see the module docstring).
    resumable: bool = False
    #: 1-based place among the jobs not started yet; None once started (the registry keeps it).
    position: int | None = None
    #: How it ends, once decided (see ``Ending``); ``ending_error`` is a FAILED job's reason
    #: when something else than its work decided it (a failed record write).
    ending: Ending = Ending.OPEN
    ending_error: BaseException | None = None
    #: Output names claimed before the first byte of them was written (see
    #: ``JobRegistry.claimer``); recorded, so a restart can remove those of a job never done.
    claimed: list[str] = field(default_factory=list)
    #: (monotonic time, paragraphs done) when translating began: the base of the ETA.
    rate_origin: tuple[float, int] | None = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.stage in (Stage.DONE, Stage.FAILED)

    @property
    def cancelled(self) -> bool:
        """Its end is a cancellation, not a shutdown."""
        return self.ending is Ending.CANCELLED

    @property
    def stage_text(self) -> str:
        if self.stage is Stage.QUEUED and self.started_at is not None:
            return "starting"
        return STAGE_WORDS[self.stage]

    def eta_seconds(self, now: float | None = None) -> int | None:
        """Seconds left at this job's own paragraph rate since it began translating; None
        before one paragraph came back and outside translating (rendering takes seconds)."""
        if self.stage is not Stage.TRANSLATING or self.rate_origin is None or self.total <= 0:
            return None
        since, base = self.rate_origin
        elapsed = (time.monotonic() if now is None else now) - since
        if self.done <= base or elapsed <= 0:
            return None
        rate = (self.done - base) / elapsed
        return max(0, round((self.total - self.done) / rate))

    def success_payload(self) -> dict[str, Any]:
        """The sync ``POST`` answer, also the task's ``result``."""
        return {
            "status": "success",
            "fileList": list(self.files),
            "outputDir": self.output_dir,
            "filePaths": [f"{self.output_dir}/{name}" for name in self.files],
        }

    def to_task(self, *, history: bool = False) -> dict[str, Any]:
        """The task object the plugin polls; ``history`` items say success/failed."""
        if self.stage is Stage.DONE:
            status = "success" if history else DONE_WORD
        elif self.stage is Stage.FAILED:
            status = "failed" if history else FAILED_WORD
        else:
            status = ACTIVE_PROCESS if self.operation == "crop" else ACTIVE_TRANSLATE
        task: dict[str, Any] = {
            "taskId": self.id,
            "active": not self.finished,
            "finished": self.finished,
            "fileName": self.file_name,
            "operation": self.operation,
            "engine": "zotero-translate",
            "service": "vllm",
            "modelName": self.model,
            "startTime": _iso(self.created_at),
            "endTime": _iso(self.finished_at),
            "progress": round(self.percent),
            "status": status,
            "stage": self.stage.value,
            "stageText": self.stage_text,
            "message": self.message,
            "done": self.done,
            "total": self.total,
            "config": self.config,
            "position": self.position,
            "etaSeconds": self.eta_seconds(),
        }
        if self.stage is Stage.DONE:
            payload = self.success_payload()
            task.update(
                fileList=payload["fileList"],
                filePaths=payload["filePaths"],
                outputDir=payload["outputDir"],
                result=payload,
            )
        elif self.error is not None:
            message, kind = public_message(self.error), error_type_of(self.error)
            task["error"] = message
            task["errorType"] = kind
            task["result"] = {"status": "error", "ok": False, "message": message, "errorType": kind}
        return task

    def apply(self, progress: Progress) -> bool:
        """Take a producer's progress report (never an end: only the registry ends a job);
        True when it changed the stage."""
        changed = progress.stage is not self.stage
        self.stage = progress.stage
        self.message = progress.message or STAGE_WORDS[progress.stage]
        if progress.total > 0:
            self.done, self.total = progress.done, progress.total
        if self.stage is Stage.TRANSLATING and self.rate_origin is None and self.total > 0:
            # From here: paragraphs the cache answered at once do not count as speed.
            self.rate_origin = (time.monotonic(), self.done)
        # The bar never runs backwards, even when a lost LLM is brought back mid-paper.
        self.percent = max(self.percent, percent_for(progress.stage, self.done, self.total))
        return changed

    def end(self, files: list[str] | None, error: BaseException | None, at: float) -> None:
        """Put this job in its final state: done with ``files``, or failed with ``error`` (only
        the registry calls this)."""
        self.finished_at = at
        self.position = None
        if error is None:
            self.files = files or []
            self.stage, self.percent = Stage.DONE, 100.0
            self.message = f"done: {len(self.files)} file{'s' if len(self.files) != 1 else ''}"
            if self.note:
                self.message += f"; {self.note}"
        else:
            self.error = error
            self.stage = Stage.FAILED
            self.message = public_message(error)

    def to_record(self) -> dict[str, Any]:
        """What the job store keeps: everything but live state (events, rate, position)."""
        error = self.error
        return {
            "v": RECORD_VERSION,
            "file_name": self.file_name,
            "operation": self.operation,
            "config": self.config,
            "model": self.model,
            "created_at": self.created_at,
            "stage": self.stage.value,
            "message": self.message,
            "done": self.done,
            "total": self.total,
            "percent": self.percent,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "files": self.files,
            "note": self.note,
            "output_dir": self.output_dir,
            "error": None if error is None else [public_message(error), error_type_of(error)],
            "spec": self.spec,
            "resumable": self.resumable,
            "claimed": self.claimed,
        }

    @classmethod
    def from_record(cls, job_id: str, record: dict[str, Any]) -> Job:
        """The job a record describes; ``ValueError``/``KeyError``/``TypeError`` when it
        does not describe one."""
        if record.get("v") != RECORD_VERSION:
            raise ValueError(f"record version {record.get('v')!r}")
        job = cls(
            file_name=str(record["file_name"]),
            operation=str(record["operation"]),
            config=dict(record["config"]),
            model=str(record.get("model", "")),
            id=job_id,
            created_at=float(record["created_at"]),
            stage=Stage(record["stage"]),
            message=str(record.get("message", "")),
            done=int(record.get("done", 0)),
            total=int(record.get("total", 0)),
            percent=float(record.get("percent", 0.0)),
            files=[str(name) for name in record.get("files", [])],
            note=str(record.get("note", "")),
            output_dir=str(record.get("output_dir", "")),
            spec=dict(record.get("spec") or {}),
            resumable=bool(record.get("resumable", False)),
            claimed=[str(name) for name in record.get("claimed", [])],
        )
        job.started_at = _float_or_none(record.get("started_at"))
        job.finished_at = _float_or_none(record.get("finished_at"))
        if record.get("error"):
            message, kind = record["error"]
            job.error = RecordedError(str(message), str(kind))
        if job.finished:
            job.finished_event.set()
        return job


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def read_back(store: JobStore) -> tuple[list[Job], list[str]]:
    """The jobs ``store`` holds, in submission order, and the output names that unfinished ones
    had claimed (their claims are cleared, in the store too: the caller removes those files).
    An unreadable record is logged and deleted."""
    jobs: list[Job] = []
    orphans: list[str] = []
    for job_id, record in store.load():
        try:
            job = Job.from_record(job_id, record)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("job store: forgetting job %s, its record is unreadable: %s", job_id, exc)
            store.delete(job_id)
            continue
        if job.claimed and not job.finished:
            # Killed while (or after) writing its outputs, before its end was recorded. No
            # other job can have taken these names since: a claim holds the output store
            # until the files are written. (A job that ended failed may have claimed names
            # a later job then used: those are left alone.)
            orphans += job.claimed
            job.claimed = []
            store.save(job.id, job.to_record())
        jobs.append(job)
    return jobs, orphans

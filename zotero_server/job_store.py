"""The durable job list: one SQLite file in ``ZT_DATA_DIR`` (``jobs.sqlite3``), so jobs survive
a restart (an update, a crash, a reboot).

It stores opaque JSON records, one per job id, in submission order; what a record holds is the
registry's business (``zotero_server.job.Job.to_record``). Writes never run on the caller's
thread: :meth:`JobStore.save` and :meth:`JobStore.delete` queue the write for the store's one
writer thread and return at once, so a lock another process holds on the file never stalls the
event loop. The queue keeps only the newest write per job (a job's later record replaces one not
written yet), so it is never longer than the number of jobs. Each write is one short autocommit
statement (WAL, ``synchronous=NORMAL``: a crash of the server loses nothing written; an OS crash
may lose the last few writes). A write waits ``BUSY_TIMEOUT_MS`` at most for another process's
lock, then fails.

A failed write is an error, never a silent loss: the returned :class:`Write` says it (``wait``
raises it), and the ``on_failure`` given to ``save`` is called with it (from the writer thread).
A locked file is :class:`JobStoreBusyError`, a full disk ``DiskFullError``, anything else
:class:`JobStoreError`.

The store never stops the server from starting: a file that is not a usable database of this
schema, or that fails SQLite's integrity check, is moved aside (``jobs.sqlite3.broken-<time>``)
with a logged warning and a new one is started. The records still readable in a damaged file
(damage outside the jobs table leaves them all) are copied into the new one first, so accepted
jobs are not forgotten. A record that cannot be decoded is skipped.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common.errors import DiskFullError, ZTError

log = logging.getLogger(__name__)

#: The file, inside ``ZT_DATA_DIR``.
FILE_NAME = "jobs.sqlite3"
#: ``PRAGMA user_version`` of the schema below; another value means another layout.
SCHEMA_VERSION = 1
#: How long one write waits for another process's lock on the file before it fails.
BUSY_TIMEOUT_MS = 2_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    id     TEXT NOT NULL UNIQUE,
    record TEXT NOT NULL
)
"""
_UPSERT = (
    "INSERT INTO jobs (id, record) VALUES (?, ?)"
    " ON CONFLICT(id) DO UPDATE SET record = excluded.record"
)
_DELETE = "DELETE FROM jobs WHERE id = ?"


class JobStoreError(ZTError):
    """A job's record could not be written: the job cannot be kept across a restart."""

    error_type = "JobStoreFailed"


class JobStoreBusyError(JobStoreError):
    """Another process held a lock on the job store for longer than ``BUSY_TIMEOUT_MS``."""

    error_type = "JobStoreBusy"


#: Called with a write's error, from the writer thread.
OnFailure = Callable[[ZTError], None]


class Write:
    """One queued write; :meth:`wait` blocks until it was made (or a newer one replaced it)."""

    def __init__(self, sql: str, params: tuple[str, ...], on_failure: OnFailure | None) -> None:
        self.sql = sql
        self.params = params
        self.on_failure = on_failure
        self.error: ZTError | None = None
        self._done = threading.Event()
        self._replaced: list[Write] = []

    def wait(self, timeout: float | None = None) -> None:
        """Block until written; raise the write's error (a ``ZTError``) if it failed, or
        ``JobStoreError`` if it was not made within ``timeout`` seconds."""
        if not self._done.wait(timeout):
            raise JobStoreError(f"the job store did not write within {timeout:g} s")
        if self.error is not None:
            raise self.error

    def replaces(self, older: Write) -> None:
        """``older`` was queued and not written yet: it ends the way this write ends."""
        self._replaced += [older, *older._replaced]
        older._replaced = []

    def end(self, error: ZTError | None) -> None:
        for write in (self, *self._replaced):
            write.error = error
            write._done.set()


class JobStore:
    """``job id -> record`` in submission order; see the module docstring. Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()  # the connection
        self._queue = threading.Condition()
        self._pending: dict[str, Write] = {}
        self._writing = False
        self._stopping = False
        self._db = self._open_or_replace()
        self._writer = threading.Thread(target=self._write_loop, name="job-store", daemon=True)
        self._writer.start()

    # --- opening -------------------------------------------------------------------------

    def _open_or_replace(self) -> sqlite3.Connection:
        try:
            return self._open()
        except (sqlite3.Error, _WrongSchema) as exc:
            aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
            for suffix in ("", "-wal", "-shm"):
                part = self.path.with_name(self.path.name + suffix)
                if part.exists():
                    part.replace(aside.with_name(aside.name + suffix))
            # Another layout is not ours to read; a damaged file may still hold every record.
            kept = [] if isinstance(exc, _WrongSchema) else _salvage(aside)
            log.warning(
                "job store %s is unusable (%s): moved it to %s and started a new one with the"
                " %d job record(s) still readable in it",
                self.path,
                exc,
                aside.name,
                len(kept),
            )
            db = self._open()
            for job_id, text in kept:
                db.execute(_UPSERT, (job_id, text))
            return db

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
            if version == 0 and not [t for t in tables if t[0] != "sqlite_sequence"]:
                db.execute(_SCHEMA)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version != SCHEMA_VERSION:
                raise _WrongSchema(f"schema version {version}, this server reads {SCHEMA_VERSION}")
            # The whole file, not only the jobs table: damage anywhere (the AUTOINCREMENT
            # counter, the free list) makes every later write fail. The file holds at most a
            # few hundred records, so this takes milliseconds.
            problems = [str(row[0]) for row in db.execute("PRAGMA integrity_check(5)")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("integrity check failed: " + "; ".join(problems))
        except BaseException:
            db.close()
            raise
        return db

    # --- records -------------------------------------------------------------------------

    def load(self) -> list[tuple[str, dict[str, Any]]]:
        """Every ``(id, record)``, oldest first, once the queued writes are made; records that
        do not decode are skipped."""
        self.flush()
        with self._lock:
            try:
                rows = self._db.execute("SELECT id, record FROM jobs ORDER BY seq").fetchall()
            except sqlite3.Error as exc:
                log.warning("job store %s cannot be read (%s): starting empty", self.path, exc)
                return []
        records = []
        for job_id, text in rows:
            try:
                record = json.loads(text)
            except ValueError:
                record = None
            if isinstance(record, dict):
                records.append((str(job_id), record))
            else:
                log.warning("job store: skipping the unreadable record of job %s", job_id)
        return records

    def save(
        self, job_id: str, record: dict[str, Any], on_failure: OnFailure | None = None
    ) -> Write:
        """Queue ``job_id``'s record (insert or update; a new id goes last in the order)."""
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        return self._enqueue(job_id, Write(_UPSERT, (job_id, text), on_failure))

    def delete(self, job_id: str) -> Write:
        """Queue the removal of ``job_id``'s record."""
        return self._enqueue(job_id, Write(_DELETE, (job_id,), None))

    def flush(self) -> None:
        """Block until every write queued so far was made (or failed)."""
        with self._queue:
            self._queue.wait_for(lambda: not self._pending and not self._writing)

    def close(self) -> None:
        """Make the queued writes, stop the writer, close the file; safe to call twice."""
        with self._queue:
            self._stopping = True
            self._queue.notify_all()
        if self._writer.is_alive() and self._writer is not threading.current_thread():
            self._writer.join()
        with self._lock:
            self._db.close()

    # --- the writer thread ---------------------------------------------------------------

    def _enqueue(self, job_id: str, write: Write) -> Write:
        with self._queue:
            if self._stopping:
                write.end(JobStoreError("the job store is closed"))
                return write
            older = self._pending.get(job_id)
            if older is not None:
                write.replaces(older)
            self._pending[job_id] = write  # in the older one's place: a new id stays new
            self._queue.notify_all()
        return write

    def _write_loop(self) -> None:
        while True:
            with self._queue:
                self._queue.wait_for(lambda: bool(self._pending) or self._stopping)
                if not self._pending:
                    return
                job_id = next(iter(self._pending))
                write = self._pending.pop(job_id)
                self._writing = True
            error = self._execute(write)
            write.end(error)
            if error is not None:
                log.error(
                    "job store %s: the record of job %s was not written: %s",
                    self.path,
                    job_id,
                    error,
                )
                if write.on_failure is not None:
                    try:
                        write.on_failure(error)
                    except Exception:
                        log.exception("job store: reporting a failed write")
            with self._queue:
                self._writing = False
                self._queue.notify_all()

    def _execute(self, write: Write) -> ZTError | None:
        with self._lock:
            try:
                self._db.execute(write.sql, write.params)
            except sqlite3.Error as exc:
                return _store_error(self.path, exc)
        return None


def _store_error(path: Path, exc: sqlite3.Error) -> ZTError:
    """Our error for what SQLite raised on a write."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code of an extended one
    if code == sqlite3.SQLITE_FULL:
        return DiskFullError(
            f"disk full in ZT_DATA_DIR ({path.parent}): the job could not be recorded;"
            " free some space and send it again"
        )
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return JobStoreBusyError(
            f"the job store {path.name} stayed locked by another process for"
            f" {BUSY_TIMEOUT_MS / 1000:g} s; the job could not be recorded. Stop whatever holds"
            " the file open and send the paper again"
        )
    return JobStoreError(f"the job store {path.name} cannot be written ({exc}); see the log")


def _salvage(path: Path) -> list[tuple[str, str]]:
    """The ``(id, record)`` rows still readable in the damaged store at ``path``, oldest
    first; as many as can be read before the damage (none when the table is unreadable)."""
    rows: list[tuple[str, str]] = []
    try:
        db = sqlite3.connect(path, timeout=0)
    except sqlite3.Error:
        return rows
    try:
        cursor = db.execute("SELECT id, record FROM jobs ORDER BY seq")
        while (row := cursor.fetchone()) is not None:
            rows.append((str(row[0]), str(row[1])))
    except sqlite3.Error as exc:
        log.warning("job store: reading the records of %s stopped: %s", path.name, exc)
    finally:
        db.close()
    return rows


class _WrongSchema(Exception):
    """The file is SQLite, but not a job store this server can read."""

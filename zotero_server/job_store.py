"""The durable job list: one SQLite file in ``ZT_DATA_DIR`` (``jobs.sqlite3``), so jobs survive
a restart (an update, a crash, a reboot).

It stores opaque JSON records, one per job id, in submission order; what a record holds is the
registry's business (``zotero_server.jobs.Job.to_record``). Every call is one short autocommit
statement (WAL, ``synchronous=NORMAL``: no fsync per write, well under a millisecond), cheap
enough to run on the event loop. WAL with NORMAL survives a crash of the server; an OS crash may
lose the last few writes, which costs at most a job accepted in its final second.

The store never stops the server: a file that is not a usable database of this schema is moved
aside (``jobs.sqlite3.broken-<time>``) with a logged warning and a new one is started; a write
that fails (a full disk) is logged and the job goes on in memory; a record that cannot be decoded
is skipped.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: The file, inside ``ZT_DATA_DIR``.
FILE_NAME = "jobs.sqlite3"
#: ``PRAGMA user_version`` of the schema below; another value means another layout.
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 5_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    id     TEXT NOT NULL UNIQUE,
    record TEXT NOT NULL
)
"""


class JobStore:
    """``job id -> record`` in submission order; see the module docstring. Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = self._open_or_replace()

    # --- opening -------------------------------------------------------------------------

    def _open_or_replace(self) -> sqlite3.Connection:
        try:
            return self._open()
        except (sqlite3.Error, _WrongSchema) as exc:
            aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
            log.warning(
                "job store %s is unusable (%s): moved it to %s and started an empty one;"
                " jobs from before this start are forgotten",
                self.path,
                exc,
                aside.name,
            )
            for suffix in ("", "-wal", "-shm"):
                part = self.path.with_name(self.path.name + suffix)
                if part.exists():
                    part.replace(aside.with_name(aside.name + suffix))
            return self._open()

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
            # Reads every page: a damaged file fails here, at start, not in the middle of a job.
            db.execute("SELECT COUNT(*), SUM(LENGTH(record)) FROM jobs").fetchone()
        except BaseException:
            db.close()
            raise
        return db

    # --- records -------------------------------------------------------------------------

    def load(self) -> list[tuple[str, dict[str, Any]]]:
        """Every ``(id, record)``, oldest first; records that do not decode are skipped."""
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

    def save(self, job_id: str, record: dict[str, Any]) -> None:
        """Insert or update ``job_id``'s record; a new id goes last in the order."""
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        self._write(
            "INSERT INTO jobs (id, record) VALUES (?, ?)"
            " ON CONFLICT(id) DO UPDATE SET record = excluded.record",
            (job_id, text),
        )

    def delete(self, job_id: str) -> None:
        self._write("DELETE FROM jobs WHERE id = ?", (job_id,))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, params: tuple[str, ...]) -> None:
        with self._lock:
            try:
                self._db.execute(sql, params)
            except sqlite3.Error as exc:
                # The job itself goes on; only its survival of a restart is at risk.
                log.warning("job store %s: write failed: %s", self.path, exc)


class _WrongSchema(Exception):
    """The file is SQLite, but not a job store this server can read."""

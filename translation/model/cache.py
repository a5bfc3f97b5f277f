"""The translation cache: SQLite, one row per (model, prompt version, languages, source text).

Every ``put`` is its own committed transaction, so a crash or a killed LLM loses nothing already
paid for. WAL mode and a busy timeout let several processes (the server, a CLI run, tests) read
and write the same file at once. Calls are synchronous and short (well under a millisecond
unless another process holds the write lock); async callers may call them directly.

A file that is not a usable cache (not SQLite, or damaged: checked at open) is moved aside
(``cache.sqlite3.broken-<time>``) with a logged warning and an empty cache is started: answers
can be paid for again, a server that cannot start helps nobody. A full disk makes ``put`` raise
``DiskFullError``, but the answer is kept in memory (up to ``MAX_UNWRITTEN_CHARS``), served by
``get`` and written by the next ``put`` or ``close`` that finds space again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from common.errors import DiskFullError, ZTError

log = logging.getLogger(__name__)

#: How long a write waits for another process's write lock before failing.
BUSY_TIMEOUT_MS = 10_000
#: Answers kept in memory while the disk is full (characters of answer and source text).
MAX_UNWRITTEN_CHARS = 32_000_000
#: SQLite's result codes for a file that is no database, or a damaged one.
_DAMAGED = (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS translations (
    key         TEXT PRIMARY KEY,
    model       TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    source_lang TEXT NOT NULL,
    target_lang TEXT NOT NULL,
    source_text TEXT NOT NULL,
    translation TEXT NOT NULL,
    created_at  REAL NOT NULL
)
"""


class CacheError(ZTError):
    """The cache file cannot be opened, read or written (corrupt, not SQLite, read-only)."""

    error_type = "CacheError"


@dataclass(frozen=True, kw_only=True)
class CacheKey:
    """What a cached translation depends on. Keyword-only, so parts cannot be swapped.

    ``prompt`` is ``prompts.prompt_version(format)``: a changed prompt never reuses old answers.
    """

    model: str
    prompt: str
    source_lang: str
    target_lang: str
    text: str

    @property
    def digest(self) -> str:
        """Stable primary key: SHA-256 of the parts (the text can be long)."""
        parts = [self.model, self.prompt, self.source_lang, self.target_lang, self.text]
        blob = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class TranslationCache:
    """SQLite-backed ``CacheKey -> translation`` store, safe for threads and processes.

    Creates the file and its folder if missing. Raises ``CacheError`` when the file is not a
    usable SQLite database or cannot be written.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        #: digest -> row, answers a full disk kept from the file (see the module docstring).
        self._unwritten: dict[str, _Row] = {}
        self._unwritten_chars = 0
        try:
            self._db = self._open()
        except _Damaged as exc:
            aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
            log.warning(
                "translation cache %s is unusable (%s): moved it to %s and started an empty"
                " one; paragraphs translated before are translated again",
                self.path,
                exc,
                aside.name,
            )
            for suffix in ("", "-wal", "-shm"):
                part = self.path.with_name(self.path.name + suffix)
                if part.exists():
                    part.replace(aside.with_name(aside.name + suffix))
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        """The connection, schema in place; ``_Damaged`` for a file that is no usable
        database, ``CacheError`` for one that cannot be opened (permissions, a lock)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: autocommit, so each put is committed when execute returns.
            db = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except (OSError, sqlite3.Error) as exc:
            raise CacheError(f"cannot open the translation cache {self.path}: {exc}") from exc
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            db.execute("PRAGMA journal_mode = WAL")
            # FULL: a commit survives even an OS crash; one fsync per paragraph is nothing next
            # to the LLM call that produced it.
            db.execute("PRAGMA synchronous = FULL")
            db.execute(_SCHEMA)
            # Every page, once (a tenth of a second for 100 MB): damage found now costs an
            # empty cache; found mid-paper, it would fail a job.
            problems = [str(row[0]) for row in db.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise _Damaged("; ".join(problems))
        except sqlite3.Error as exc:
            db.close()
            if _primary_code(exc) in _DAMAGED:
                raise _Damaged(str(exc)) from exc
            raise CacheError(f"cannot use the translation cache {self.path}: {exc}") from exc
        except BaseException:
            db.close()
            raise
        return db

    def get(self, key: CacheKey) -> str | None:
        """The cached translation for ``key``, or None."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: Iterable[CacheKey], since: float | None = None) -> dict[CacheKey, str]:
        """Cached translations of the keys that have one (missing keys are absent); with
        ``since`` (a ``time.time()``), only those stored at or after it."""
        by_digest = {key.digest: key for key in keys}
        found: dict[CacheKey, str] = {}
        digests = list(by_digest)
        after, extra = ("", []) if since is None else (" AND created_at >= ?", [float(since)])
        # Chunks stay under SQLite's host-parameter limit on old builds (999).
        for start in range(0, len(digests), 500):
            chunk = digests[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._query_all(
                f"SELECT key, translation FROM translations WHERE key IN ({marks}){after}",
                [*chunk, *extra],
            )
            for digest, translation in rows:
                found[by_digest[str(digest)]] = str(translation)
        with self._lock:
            for digest, row in self._unwritten.items():
                if digest in by_digest and (since is None or row[7] >= since):
                    found[by_digest[digest]] = row[6]
        return found

    def put(self, key: CacheKey, translation: str) -> None:
        """Store (or replace) the translation of ``key``; committed when this returns."""
        row = (
            key.digest,
            key.model,
            key.prompt,
            key.source_lang,
            key.target_lang,
            key.text,
            translation,
            time.time(),
        )
        with self._lock:
            replaced = self._unwritten.pop(row[0], None)
            if replaced is not None:
                self._unwritten_chars -= len(replaced[5]) + len(replaced[6])
            try:
                self._write_unwritten()
                self._insert(row)
            except _DiskFull as exc:
                self._keep(row)
                raise DiskFullError(
                    f"disk full in ZT_DATA_DIR ({self.path.parent}): free some space and send the"
                    f" paper again; the {len(self._unwritten)} answer(s) received meanwhile are"
                    " kept and not paid for again"
                ) from exc

    def count(self) -> int:
        """Number of cached translations (answers a full disk kept in memory included)."""
        row = self._query_one("SELECT COUNT(*) FROM translations", ())
        with self._lock:
            return (int(str(row[0])) if row else 0) + len(self._unwritten)

    def close(self) -> None:
        """Write what a full disk kept back if there is room now, and close; safe twice."""
        with self._lock:
            if self._unwritten:
                try:
                    self._write_unwritten()
                except (_DiskFull, CacheError) as exc:
                    log.warning(
                        "translation cache %s: %d answer(s) not written (%s); they will be"
                        " paid for again",
                        self.path,
                        len(self._unwritten),
                        exc,
                    )
            self._db.close()

    # --- writing, under self._lock ---------------------------------------------------------

    def _insert(self, row: _Row) -> None:
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO translations VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row
            )
        except sqlite3.Error as exc:
            if _primary_code(exc) == sqlite3.SQLITE_FULL:
                raise _DiskFull(str(exc)) from exc
            raise CacheError(f"cannot write the translation cache {self.path}: {exc}") from exc

    def _write_unwritten(self) -> None:
        """Write the answers a full disk kept back, oldest first; raises as ``_insert``."""
        while self._unwritten:
            digest, row = next(iter(self._unwritten.items()))
            self._insert(row)
            del self._unwritten[digest]
            self._unwritten_chars -= len(row[5]) + len(row[6])

    def _keep(self, row: _Row) -> None:
        size = len(row[5]) + len(row[6])
        if self._unwritten_chars + size <= MAX_UNWRITTEN_CHARS:
            self._unwritten[row[0]] = row
            self._unwritten_chars += size
        else:
            log.warning(
                "translation cache: disk full and %d answers held; dropping one",
                len(self._unwritten),
            )

    def __enter__(self) -> TranslationCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _query_one(self, sql: str, params: tuple[str, ...]) -> tuple[object, ...] | None:
        with self._lock:
            try:
                row: tuple[object, ...] | None = self._db.execute(sql, params).fetchone()
            except sqlite3.Error as exc:
                raise CacheError(f"cannot read the translation cache {self.path}: {exc}") from exc
        return row

    def _query_all(self, sql: str, params: list[str | float]) -> list[tuple[object, ...]]:
        with self._lock:
            try:
                rows: list[tuple[object, ...]] = self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise CacheError(f"cannot read the translation cache {self.path}: {exc}") from exc
        return rows

    def __repr__(self) -> str:
        return f"TranslationCache({str(self.path)!r})"


#: A row of the translations table, in its column order.
_Row = tuple[str, str, str, str, str, str, str, float]


class _Damaged(Exception):
    """The file is no database, or a damaged one."""


class _DiskFull(Exception):
    """SQLite could not write for lack of space."""


def _primary_code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of ``exc`` (Python gives the extended one)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF

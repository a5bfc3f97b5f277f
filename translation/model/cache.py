"""The translation cache: SQLite, one row per (model, prompt version, languages, source text).

Every ``put`` is its own committed transaction, so a crash or a killed LLM loses nothing already
paid for. WAL mode and a busy timeout let several processes (the server, a CLI run, tests) read
and write the same file at once. Calls are synchronous and short (well under a millisecond
unless another process holds the write lock); async callers may call them directly.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from common.errors import ZTError

#: How long a write waits for another process's write lock before failing.
BUSY_TIMEOUT_MS = 10_000

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
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: autocommit, so each put is committed when execute returns.
            self._db = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except (OSError, sqlite3.Error) as exc:
            raise CacheError(f"cannot open the translation cache {self.path}: {exc}") from exc
        try:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA journal_mode = WAL")
            # FULL: a commit survives even an OS crash; one fsync per paragraph is nothing next
            # to the LLM call that produced it.
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as exc:
            self._db.close()
            raise CacheError(f"cannot use the translation cache {self.path}: {exc}") from exc

    def get(self, key: CacheKey) -> str | None:
        """The cached translation for ``key``, or None."""
        row = self._query_one("SELECT translation FROM translations WHERE key = ?", (key.digest,))
        return None if row is None else str(row[0])

    def get_many(self, keys: Iterable[CacheKey]) -> dict[CacheKey, str]:
        """Cached translations of the keys that have one (missing keys are absent)."""
        by_digest = {key.digest: key for key in keys}
        found: dict[CacheKey, str] = {}
        digests = list(by_digest)
        # Chunks stay under SQLite's host-parameter limit on old builds (999).
        for start in range(0, len(digests), 500):
            chunk = digests[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._query_all(
                f"SELECT key, translation FROM translations WHERE key IN ({marks})", chunk
            )
            for digest, translation in rows:
                found[by_digest[str(digest)]] = str(translation)
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
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO translations VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row
                )
            except sqlite3.Error as exc:
                raise CacheError(f"cannot write the translation cache {self.path}: {exc}") from exc

    def count(self) -> int:
        """Number of cached translations."""
        row = self._query_one("SELECT COUNT(*) FROM translations", ())
        return int(str(row[0])) if row else 0

    def close(self) -> None:
        """Close the connection; safe to call twice."""
        with self._lock:
            self._db.close()

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

    def _query_all(self, sql: str, params: list[str]) -> list[tuple[object, ...]]:
        with self._lock:
            try:
                rows: list[tuple[object, ...]] = self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise CacheError(f"cannot read the translation cache {self.path}: {exc}") from exc
        return rows

    def __repr__(self) -> str:
        return f"TranslationCache({str(self.path)!r})"

"""Readings kept across jobs: a paper read once is not read again.

Reading a paper (its pages' text, then every stage of ``translation.read``) is a second or more
of a PDF worker's time, and the same paper comes back: translated again once its answers are
in the answer cache (then the reading is most of the job), into another language, with other
outputs. The reading depends on the file's bytes, the pages asked, whether the references are
translated, the OCR options, the limits, and on the code that reads it: an entry is kept under
a digest of all of these, the reading code's own files (:data:`CODE_FILES`) and the versions of
Python, PyMuPDF and the word lists among them, so a reading made by other code (an upgrade, an
edited checkout) is never served.

A reading that took OCR is not kept (Tesseract's reading is not part of the key), nor is one
that failed. Entries are files in a folder of the data directory (``ZT_DATA_DIR``), written
whole under a temporary name, then renamed: a reader sees a whole entry or none. Each ends with a
digest of its payload, so an entry cut short or damaged on disk is a miss, deleted (the next
reading writes it anew). The folder keeps the :data:`KEEP` most recently used entries, no more
than :data:`MAX_BYTES` in all; a reading larger than :data:`MAX_ENTRY_BYTES` is not kept, and a
file that large is never loaded. An entry is a pickle, so the folder is made private (0700) and
used only while no other user may write into it, and an entry another user owns is never loaded.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import logging
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import BinaryIO

import pymupdf

import translation
from translation.read.ocr import OcrOptions
from translation.read.pages.pdf_limits import PdfLimits
from translation.read.segmentation import Segmentation

log = logging.getLogger(__name__)

#: Readings a folder keeps (a 50-page paper's is about 0.5 MB).
KEEP = 200
#: Bytes the folder's entries take at most: the most recently used are kept.
MAX_BYTES = 256 * 1024 * 1024
#: The largest entry written or read (a reading at the text limits is far larger: read again).
MAX_ENTRY_BYTES = 32 * 1024 * 1024
#: A temporary file older than this is a write that died with its worker.
STALE_PART_S = 3600.0

#: What the reading imports outside ``translation/read`` (``tests`` checks the list is whole),
#: and this module (the entries' format), relative to the repository's root.
CODE_FILES = (
    "translation/__init__.py",
    "common/__init__.py",
    "translation/reading_cache.py",
    "common/errors.py",
    "common/language.py",
)

_SUFFIX = ".reading"
_PART = ".part"
_MAGIC = b"zt-reading-1\n"
_DIGEST = hashlib.sha256().digest_size


def code_files(root: Path) -> list[Path]:
    """The files of the reading code under the repository root ``root``: every file of
    ``translation/read`` and :data:`CODE_FILES`."""
    read = [p for p in (root / "translation" / "read").rglob("*") if "__pycache__" not in p.parts]
    return sorted(p for p in [*read, *(root / name for name in CODE_FILES)] if p.is_file())


def code_digest(root: Path) -> str:
    """A digest of what a reading depends on besides its input: the reading code's files
    under ``root`` (:func:`code_files`), Python's and PyMuPDF's versions and the word lists'
    package."""
    digest = hashlib.sha256()
    for path in code_files(root):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    words = importlib.metadata.version("pyspellchecker")
    digest.update(f"{sys.version} {pymupdf.VersionBind} {pymupdf.VersionFitz} {words}".encode())
    return digest.hexdigest()


@functools.cache
def code_version() -> str:
    """:func:`code_digest` of the code this process runs (its files read once)."""
    return code_digest(Path(translation.__file__).resolve().parent.parent)


class ReadingCache:
    """The readings kept in ``folder`` (made on first write), under ``version`` of the
    reading code (:func:`code_version`); ``keep`` entries, ``max_bytes`` in all at most."""

    def __init__(
        self,
        folder: Path,
        keep: int = KEEP,
        version: str | None = None,
        max_bytes: int = MAX_BYTES,
        max_entry_bytes: int = MAX_ENTRY_BYTES,
    ) -> None:
        self.folder = folder
        self.keep = keep
        self.version = version if version is not None else code_version()
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes

    def key(
        self,
        data: bytes,
        pages: Sequence[int] | None,
        include_references: bool,
        limits: PdfLimits,
        ocr: OcrOptions,
    ) -> str:
        """The entry of reading ``data`` so."""
        digest = hashlib.sha256(self.version.encode())
        digest.update(hashlib.sha256(data).digest())
        # Every option of the reading, new ones too; how many scanned pages are read at once
        # changes nothing read.
        asked = (
            None if pages is None else list(pages),
            include_references,
            dataclasses.astuple(limits),
            dataclasses.astuple(dataclasses.replace(ocr, processes=1)),
        )
        digest.update(repr(asked).encode())
        return digest.hexdigest()

    def get(self, key: str) -> Segmentation | None:
        """The reading kept under ``key``, or None (none, or one that cannot be read: that
        one is deleted)."""
        path = self._path(key)
        try:
            if not _private(self.folder):
                return None  # an entry is a pickle: loaded only from a folder of our own
            with path.open("rb") as file:
                held = os.fstat(file.fileno())
                if held.st_uid != os.getuid():
                    raise ValueError("written by another user")
                if held.st_size > self.max_entry_bytes:
                    raise ValueError("larger than an entry may be")
                found = _loads(file.read())
        except FileNotFoundError:
            return None
        except Exception as exc:  # damaged: read again, and written anew
            log.warning("reading cache entry %s unreadable (%s): read again", path.name, exc)
            path.unlink(missing_ok=True)
            return None
        try:
            os.utime(path)  # used: the last to go
        except OSError:
            pass
        return found

    def put(self, key: str, reading: Segmentation) -> None:
        """Keep ``reading`` under ``key``; a folder that cannot be written keeps nothing (the
        job goes on). The pickle streams to its file, never whole in memory: a reading past
        the entry's bound stops there, under a worker's memory limit."""
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if self.folder.stat().st_uid == os.getuid():
                self.folder.chmod(0o700)  # made before under a looser umask: ours to close
            if not _private(self.folder):
                log.warning("reading cache %s is not private to this user: not used", self.folder)
                return
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=_PART)
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(_MAGIC)
                    capped = _Capped(file, self.max_entry_bytes - len(_MAGIC) - _DIGEST)
                    pickle.dump(reading, capped, protocol=pickle.HIGHEST_PROTOCOL)
                    file.write(capped.digest.digest())
                os.replace(temporary, self._path(key))
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._prune()
        except _TooLarge:
            log.info("reading cache: a reading over %d bytes is not kept", self.max_entry_bytes)
        except (OSError, MemoryError) as exc:
            log.warning("reading cache %s not written: %s", self.folder, exc)

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}{_SUFFIX}"

    def _prune(self) -> None:
        now = time.time()
        entries = []
        for path in self.folder.iterdir():
            try:
                stat = path.stat()
            except OSError:  # gone meanwhile (another worker pruned it)
                continue
            if path.suffix == _SUFFIX:
                entries.append((stat.st_mtime, stat.st_size, path))
            elif path.suffix == _PART and now - stat.st_mtime > STALE_PART_S:
                path.unlink(missing_ok=True)
        entries.sort(reverse=True)
        _unlink(path for path in _over(entries, self.keep, self.max_bytes))


def _private(folder: Path) -> bool:
    """Whether ``folder`` is this user's and no one else may write into it: an entry is a
    pickle, and loading one runs what it names."""
    try:
        held = folder.stat()
    except OSError:
        return False
    return held.st_uid == os.getuid() and not held.st_mode & 0o022


def _loads(content: bytes) -> Segmentation:
    head = len(_MAGIC)
    if not content.startswith(_MAGIC) or len(content) < head + _DIGEST:
        raise ValueError("not an entry of this format")
    payload = content[head:-_DIGEST]
    if hashlib.sha256(payload).digest() != content[-_DIGEST:]:
        raise ValueError("its digest does not match")
    found = pickle.loads(payload)
    if not isinstance(found, Segmentation):
        raise ValueError(f"holds a {type(found).__name__}")
    return found


class _TooLarge(Exception):
    """The reading's pickle ran past the entry's bound."""


class _Capped:
    """A binary file's ``write`` that hashes what passes, and stops past ``limit`` bytes."""

    def __init__(self, file: BinaryIO, limit: int) -> None:
        self._file, self._left = file, limit
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self._left -= len(data)
        if self._left < 0:
            raise _TooLarge
        self.digest.update(data)
        return self._file.write(data)


def _over(entries: Sequence[tuple[float, int, Path]], keep: int, max_bytes: int) -> list[Path]:
    """The ``entries`` (newest first) past the first ``keep`` or past ``max_bytes`` in all."""
    total, over = 0, []
    for n, (_, size, path) in enumerate(entries):
        total += size
        if n >= keep or total > max_bytes:
            over.append(path)
    return over


def _unlink(paths: Iterable[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)

"""Readings kept across jobs: a paper read once is not read again.

Reading a paper (its pages' text, then every stage of ``translation.read``) is a second or more
of a PDF worker's time, and the same paper comes back: translated again once its answers are
in the answer cache (then the reading is most of the job), into another language, with other
outputs. The reading depends on the file's bytes, the pages asked, whether the references are
translated, the OCR options, the limits, and on the code that reads it: an entry is kept under
a digest of all of these, the reading code's own files and the versions of PyMuPDF and of the
word lists among them, so a reading made by other code is never served.

A reading that took OCR is not kept (Tesseract's reading is not part of the key), nor is one
that failed. Entries are files in a folder of the data directory (``ZT_DATA_DIR``), written
whole or not at all; the folder keeps the :data:`KEEP` most recently used, and an entry that
cannot be read is a miss.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pymupdf

import translation
from translation.read.ocr import OcrOptions
from translation.read.pages.pdf_limits import PdfLimits
from translation.read.segmentation import Segmentation

log = logging.getLogger(__name__)

#: Readings a folder keeps (a 50-page paper's is about 0.5 MB).
KEEP = 200
_SUFFIX = ".reading"


@functools.cache
def code_version() -> str:
    """A digest of what a reading depends on besides its input: every file of
    ``translation/read``, the modules it uses outside it, Python's and PyMuPDF's versions
    and the word lists' package."""
    root = Path(translation.__file__).resolve().parent
    files = [path for path in (root / "read").rglob("*") if "__pycache__" not in path.parts]
    common = root.parent / "common"
    files += [root / "__init__.py", common / "errors.py", common / "language.py"]
    digest = hashlib.sha256()
    for path in sorted(p for p in files if p.is_file()):
        digest.update(str(path.relative_to(root.parent)).encode())
        digest.update(path.read_bytes())
    words = importlib.metadata.version("pyspellchecker")
    digest.update(f"{sys.version} {pymupdf.VersionBind} {pymupdf.VersionFitz} {words}".encode())
    return digest.hexdigest()


class ReadingCache:
    """The readings kept in ``folder`` (made on first write), under ``version`` of the
    reading code (:func:`code_version`)."""

    def __init__(self, folder: Path, keep: int = KEEP, version: str | None = None) -> None:
        self.folder = folder
        self.keep = keep
        self.version = version if version is not None else code_version()

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
        asked = (
            None if pages is None else list(pages),
            include_references,
            limits,
            (ocr.mode.value, ocr.language.code, ocr.dpi),
        )
        digest.update(repr(asked).encode())
        return digest.hexdigest()

    def get(self, key: str) -> Segmentation | None:
        """The reading kept under ``key``, or None."""
        path = self._path(key)
        try:
            with path.open("rb") as file:
                found = pickle.load(file)
        except FileNotFoundError:
            return None
        except Exception as exc:  # damaged: read again, and write it anew
            log.warning("reading cache entry %s unreadable (%r): read again", path.name, exc)
            return None
        if not isinstance(found, Segmentation):
            return None
        try:
            os.utime(path)  # used: the last to go
        except OSError:
            pass
        return found

    def put(self, key: str, reading: Segmentation) -> None:
        """Keep ``reading`` under ``key``; a folder that cannot be written keeps nothing (the
        job goes on)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".part")
            try:
                with os.fdopen(handle, "wb") as file:
                    pickle.dump(reading, file, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, self._path(key))
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._prune()
        except OSError as exc:
            log.warning("reading cache %s not written: %s", self.folder, exc)

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}{_SUFFIX}"

    def _prune(self) -> None:
        entries = []
        for path in self.folder.glob(f"*{_SUFFIX}"):
            try:
                entries.append((path.stat().st_mtime, path))
            except OSError:  # gone meanwhile (another worker pruned it)
                continue
        entries.sort(reverse=True)
        for _, path in entries[self.keep :]:
            path.unlink(missing_ok=True)

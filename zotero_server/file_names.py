"""Names of PDF files: what a file is by its name (``FileKind``), what an output is called
(``OutputKind``), and which names a client may send (pure, no I/O)."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from zotero_server.http_errors import InvalidNameError

#: Longest accepted file name, in UTF-8 bytes (common file-system limit).
MAX_NAME_BYTES = 240
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class FileKind(StrEnum):
    """What a file is, judged by its name the way the plugin does (``getFileType``)."""

    ORIGIN = "origin"
    MONO = "mono"
    DUAL = "dual"
    MONO_CUT = "mono-cut"
    DUAL_CUT = "dual-cut"
    CROP_COMPARE = "crop-compare"
    COMPARE = "compare"
    CUT = "cut"


class OutputKind(StrEnum):
    """One output file; the value is its name suffix: ``<stem>-<value>.pdf``."""

    MONO = "mono"
    DUAL = "dual"
    MONO_CUT = "mono-cut"
    DUAL_CUT = "dual-cut"
    CROP_COMPARE = "crop-compare"
    COMPARE = "compare"
    SINGLE_COMPARE = "single-compare"  # v2.x plugins' name for side-by-side pages
    CUT = "cut"
    #: The job's glossary, as CSV (``saveGlossary``).
    GLOSSARY = "glossary"

    def file_name(self, stem: str) -> str:
        return f"{stem}-{self.value}{'.csv' if self is OutputKind.GLOSSARY else '.pdf'}"


# The plugin's first-match order: "mono-cut.pdf" is checked after "mono.pdf", which it does not
# contain, so the order only matters between compare and crop-compare.
_KIND_MARKERS: tuple[tuple[str, FileKind], ...] = (
    ("mono.pdf", FileKind.MONO),
    ("dual.pdf", FileKind.DUAL),
    ("mono-cut.pdf", FileKind.MONO_CUT),
    ("dual-cut.pdf", FileKind.DUAL_CUT),
    ("crop-compare.pdf", FileKind.CROP_COMPARE),
    ("compare.pdf", FileKind.COMPARE),
    ("cut.pdf", FileKind.CUT),
)


def check_file_name(raw: Any, what: str = "fileName", csv: bool = False) -> str:
    """A bare ``*.pdf`` file name (or ``*.csv``, with ``csv``: an output's name), or
    ``InvalidNameError``. Never a path."""
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidNameError(f"{what} is missing")
    name = raw.strip()
    if "/" in name or "\\" in name or name in {".", ".."} or _CONTROL.search(name):
        raise InvalidNameError(f"{what} must be a bare file name, not a path")
    if name.startswith("."):
        raise InvalidNameError(f"{what} must not start with a dot")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise InvalidNameError(f"{what} is too long")
    suffixes = (".pdf", ".csv") if csv else (".pdf",)
    if not name.lower().endswith(suffixes) or len(name) <= len(".pdf"):
        raise InvalidNameError(f"only PDF files are accepted ({what} must end in .pdf)")
    return name


def file_stem(name: str, kind: FileKind = FileKind.ORIGIN) -> str:
    """The stem outputs are named after: ``paper.PDF`` -> ``paper``, and for a translation
    its original's stem (``paper-mono.pdf`` -> ``paper``, so cropping it makes
    ``paper-mono-cut.pdf``)."""
    stem = name[: -len(".pdf")]
    if kind in (FileKind.MONO, FileKind.DUAL):
        marker = kind.value
        if len(stem) > len(marker) + 1 and stem.lower()[-len(marker) - 1 :] in (
            f"-{marker}",
            f".{marker}",
        ):
            stem = stem[: -len(marker) - 1]
    return stem


def file_kind(name: str) -> FileKind:
    """The plugin matches bare substrings; we also want a ``-`` or ``.`` before the marker, so
    that an original called ``Shortcut.pdf`` is not mistaken for a cut file."""
    lowered = name.lower()
    for marker, kind in _KIND_MARKERS:
        at = lowered.find(marker)
        while at != -1:
            if at > 0 and lowered[at - 1] in "-.":
                return kind
            at = lowered.find(marker, at + 1)
    return FileKind.ORIGIN

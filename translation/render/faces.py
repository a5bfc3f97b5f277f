"""The typeface a translation is set in: a serif or sans-serif CJK face with a real bold weight
where the machine has one, chosen by the plugin's ``fontFamily`` or by the paper's own body text.

The faces are Noto Serif CJK and Noto Sans CJK (Debian: ``fonts-noto-cjk``), found as their
font collections in one folder (``ZT_FONT_DIR``); each collection holds one face per region
(JP, KR, SC, TC) and the target language picks it. Where they are not installed, or for a
target that is not Chinese, Japanese or Korean, the built-in fonts of ``translation.render.fonts``
set the text (bold is then drawn by stroking the outline). Faces are read once per process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

import pymupdf

from translation.render.cff import collection_face


class FontFamily(StrEnum):
    """The plugin's ``fontFamily``."""

    #: The paper's own: a serif body gets the serif face, a sans-serif one the sans face.
    AUTO = "auto"
    SERIF = "serif"
    SANS = "sans-serif"
    #: A handwriting face, which no installed font provides here: set as ``AUTO``.
    SCRIPT = "script"

    @classmethod
    def parse(cls, value: str) -> FontFamily:
        """The family a plugin value names (``sans``, ``Sans-Serif``; ``""`` is ``AUTO``);
        ``ValueError`` for any other word."""
        word = value.strip().lower() or "auto"
        if word in ("sans", "sansserif", "sans serif"):
            return cls.SANS
        return cls(word)


#: The collections' files, (regular, bold), for serif and sans-serif.
FILES = {
    True: ("NotoSerifCJK-Regular.ttc", "NotoSerifCJK-Bold.ttc"),
    False: ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Bold.ttc"),
}
#: The face of each target language in those collections: (index, region).
REGIONS = {"ja": (0, "JP"), "ko": (1, "KR"), "zh-Hans": (2, "SC"), "zh-Hant": (3, "TC")}
BUILT_IN = "Droid Sans Fallback (built-in)"


@dataclass(frozen=True)
class FaceFile:
    path: Path
    index: int


@dataclass(frozen=True)
class Face:
    """One installed face: its name (``Noto Serif CJK KR``), and its regular and bold files."""

    name: str
    serif: bool
    regular: FaceFile
    bold: FaceFile | None


def find_face(folder: Path | None, target_lang: str, serif: bool) -> Face | None:
    """The installed face for ``target_lang`` (a model code: ``ko``, ``zh-Hans``) in that
    style, or None."""
    if folder is None or target_lang not in REGIONS:
        return None
    index, region = REGIONS[target_lang]
    regular, bold = (folder / name for name in FILES[serif])
    if not regular.is_file():
        return None
    style = "Serif" if serif else "Sans"
    return Face(
        f"Noto {style} CJK {region}",
        serif,
        FaceFile(regular, index),
        FaceFile(bold, index) if bold.is_file() else None,
    )


def choose_face(
    folder: Path | None, target_lang: str, family: FontFamily, paper_serif: bool
) -> Face | None:
    """The face to set a translation in: the family asked for (the paper's own for ``AUTO``
    and ``SCRIPT``), else the other style where only that one is installed; None for the
    built-in fonts."""
    serif = (
        paper_serif
        if family in (FontFamily.AUTO, FontFamily.SCRIPT)
        else (family is FontFamily.SERIF)
    )
    return find_face(folder, target_lang, serif) or find_face(folder, target_lang, not serif)


def describe(face: Face | None, target_lang: str = "ko") -> str:
    """What a user is told of the face used for ``target_lang``."""
    if face is None:
        return BUILT_IN if target_lang in REGIONS else "Noto Serif (built-in)"
    return face.name + (" with its bold" if face.bold is not None else "")


def installed(folder: Path | None) -> str:
    """What ``zotero-translate status`` says of the faces in ``folder``."""
    found = [
        ("Noto Serif CJK" if serif else "Noto Sans CJK") + (" (with bold)" if bold else "")
        for serif in (True, False)
        if (face := find_face(folder, "ko", serif)) is not None
        for bold in [face.bold is not None]
    ]
    if found:
        return f"{', '.join(found)} in {folder}"
    return f"{BUILT_IN} only: no Noto CJK fonts in {folder} (install fonts-noto-cjk)"


_lock = threading.Lock()


@cache
def _load(path: Path, index: int) -> tuple[pymupdf.Font, bytes]:
    data = collection_face(path.read_bytes(), index)
    return pymupdf.Font(fontbuffer=data), data


def load(file: FaceFile) -> tuple[pymupdf.Font, bytes]:
    """The font of ``file`` and its bytes (a standalone OpenType font), read once."""
    with _lock:
        return _load(file.path, file.index)


# --- the paper's own style --------------------------------------------------------------------

_SANS_WORDS = (
    "sans", "arial", "helvetica", "calibri", "verdana", "tahoma", "segoe", "gothic", "dotum",
    "gulim", "malgun", "hei", "futura", "frutiger", "myriad", "lato", "roboto", "inter",
)  # fmt: skip
_SERIF_WORDS = (
    "serif", "times", "roman", "minion", "garamond", "georgia", "cambria", "palatino",
    "batang", "myeongjo", "mincho", "song", "ming", "cmr", "lmr", "stix", "nimbusrom",
    "charter", "utopia", "libertine", "bookman", "century", "baskerville",
)  # fmt: skip


def font_is_serif(name: str, flags: int) -> bool | None:
    """Whether a font is a serif face, by its name, else by its flags (MuPDF's bit 4);
    None for a monospaced font (it says nothing of the body)."""
    if flags & 8:
        return None
    base = name.split("+", 1)[-1].lower().replace(" ", "").replace("-", "")
    if any(word in base for word in _SANS_WORDS):
        return False
    if any(word in base for word in _SERIF_WORDS):
        return True
    return bool(flags & 4)


def paper_is_serif(doc: pymupdf.Document, pages: list[int], sample: int = 4) -> bool:
    """Whether the body text of ``pages`` (the first ``sample`` of them) is mostly set in serif
    faces, counted in characters; a paper with no text counts as serif."""
    serif = sans = 0
    for number in pages[:sample]:
        for block in doc[number].get_text("dict", flags=0)["blocks"]:
            for line in block.get("lines", ()):
                for span in line["spans"]:
                    kind = font_is_serif(span["font"], int(span["flags"]))
                    if kind is True:
                        serif += len(span["text"])
                    elif kind is False:
                        sans += len(span["text"])
    return serif >= sans

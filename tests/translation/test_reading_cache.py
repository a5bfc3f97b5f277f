"""translation.reading_cache: a paper read once is not read again by the next job's worker."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from common.errors import PDFTooComplexError
from common.language import Language
from tests.conftest import REPO_ROOT
from tests.helpers.ocr import needs_ocr, scan_of
from tests.helpers.pdfgen.textbox import small_paper
from translation.read.ocr import OCR_DPI, OcrOptions
from translation.read.pages.pdf_limits import PdfLimits
from translation.read.segmentation import Segmentation
from translation.reading_cache import (
    CODE_FILES,
    STALE_PART_S,
    ReadingCache,
    code_digest,
    code_files,
    code_version,
)
from translation.worker import PdfWorker, WorkerConfig

KO = Language("ko")
ROOT = REPO_ROOT


async def _read(
    paper: bytes,
    folder: Path,
    pages: list[int] | None = None,
    references: bool = False,
    limits: PdfLimits | None = None,
    ocr: OcrOptions | None = None,
    ocr_dpi: int = OCR_DPI,
) -> Segmentation:
    """The reading a fresh PDF worker (a job's) opens ``paper`` with, readings kept in
    ``folder``; every part it told early is among its paragraphs."""
    parts: list[str] = []
    config = WorkerConfig(reading_cache=folder, limits=limits or PdfLimits(), ocr_dpi=ocr_dpi)
    async with PdfWorker(config) as worker:
        _, found = await worker.open(
            paper,
            None,
            pages,
            references,
            KO,
            ocr,
            on_part=lambda p: parts.extend(x.text for x in p),
        )
    assert set(parts) <= {p.text for p in found.paragraphs}
    return found


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.reading"))


def _key(paper: bytes, pages: list[int] | None = None, ocr: OcrOptions | None = None) -> str:
    """The key a worker with the default limits keeps ``paper``'s reading under."""
    cache = ReadingCache(Path("unused"))
    return cache.key(paper, pages, False, PdfLimits(), ocr or OcrOptions())


async def test_a_paper_read_before_is_served_from_its_kept_reading(tmp_path: Path) -> None:
    paper = small_paper(3)
    first = await _read(paper, tmp_path)
    (entry,) = _entries(tmp_path)
    assert entry.stem == _key(paper)
    assert await _read(paper, tmp_path) == first
    # What the next job gets is what was kept: a kept reading marked as ours comes back.
    marked = dataclasses.replace(first.paragraphs[0], text="kept reading")
    ReadingCache(tmp_path).put(_key(paper), dataclasses.replace(first, paragraphs=[marked]))
    served = await _read(paper, tmp_path)
    assert [p.text for p in served.paragraphs] == ["kept reading"]
    # Another paper is read.
    other = await _read(small_paper(2), tmp_path)
    assert other.paragraphs[0].text == first.paragraphs[0].text
    assert len(_entries(tmp_path)) == 2


async def test_the_same_paper_asked_otherwise_is_read_again(tmp_path: Path) -> None:
    paper = small_paper(3)
    whole = await _read(paper, tmp_path)
    first_page = await _read(paper, tmp_path, pages=[0])
    assert {p.page for p in first_page.paragraphs} == {0} != {p.page for p in whole.paragraphs}
    await _read(paper, tmp_path, references=True)
    await _read(paper, tmp_path, ocr_dpi=150)  # the server's ZT_OCR_DPI
    await _read(paper, tmp_path, limits=PdfLimits(max_pages=50))
    assert len(_entries(tmp_path)) == 5
    # How many scanned pages are read at once changes nothing read: the same entry.
    assert _key(paper, ocr=OcrOptions(processes=4)) == _key(paper)


@pytest.mark.parametrize("damage", ["garbage", "cut short", "a flipped byte"])
async def test_a_damaged_entry_is_read_again_and_written_anew(tmp_path: Path, damage: str) -> None:
    """A crash mid-write (before the rename, or a disk that lost the file's end after it),
    or a changed byte on disk: the entry is no reading; the paper is read as if it were
    not there, and its entry replaced by a good one."""
    paper = small_paper(2)
    first = await _read(paper, tmp_path)
    (entry,) = _entries(tmp_path)
    good = entry.read_bytes()
    if damage == "garbage":
        entry.write_bytes(b"not a reading")
    elif damage == "cut short":
        entry.write_bytes(good[: len(good) // 2])
    else:
        entry.write_bytes(good[:-10] + bytes([good[-10] ^ 1]) + good[-9:])
    assert ReadingCache(tmp_path).get(entry.stem) is None
    assert not entry.exists()  # the damaged file goes at once
    entry.write_bytes(good[: len(good) // 2])
    assert await _read(paper, tmp_path) == first
    assert entry.read_bytes() == good
    assert ReadingCache(tmp_path).get(entry.stem) == first


async def test_a_reading_that_failed_is_not_kept(tmp_path: Path) -> None:
    with pytest.raises(PDFTooComplexError):
        await _read(small_paper(2), tmp_path, limits=PdfLimits(max_page_chars=100))
    assert _entries(tmp_path) == []


@needs_ocr("en")
async def test_a_reading_by_ocr_is_not_kept(tmp_path: Path) -> None:
    """Tesseract is no part of the key: its reading is not kept, and is read again."""
    scan = scan_of(small_paper(1))
    found = await _read(scan, tmp_path, ocr=OcrOptions(dpi=150))
    assert "paragraph" in " ".join(p.text for p in found.paragraphs).lower()
    assert _entries(tmp_path) == []


def test_a_reading_made_by_other_code_is_not_served(tmp_path: Path) -> None:
    asked = (small_paper(1), None, False, PdfLimits(), OcrOptions())
    old, new = ReadingCache(tmp_path, version="old"), ReadingCache(tmp_path, version="new")
    old.put(old.key(*asked), Segmentation(paragraphs=[]))
    assert old.get(old.key(*asked)) == Segmentation(paragraphs=[])
    assert new.get(new.key(*asked)) is None
    # The code's version is a digest of its files, the same for every process.
    assert ReadingCache(tmp_path).version == code_version() and len(code_version()) == 64


def test_the_code_version_changes_with_any_file_of_the_reading(tmp_path: Path) -> None:
    """An upgrade, or an edited checkout: a changed reading module (or a new one) is another
    version; a module the reading does not use is not."""
    copy = tmp_path / "tree"
    for path in code_files(ROOT):
        (copy / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy / path.relative_to(ROOT))
    before = code_digest(copy)
    assert before == code_version()
    render = copy / "translation" / "render" / "typeset.py"
    render.parent.mkdir(parents=True)
    render.write_text("# not read by the reading\n")
    assert code_digest(copy) == before
    for changed in ("translation/read/rows/row.py", "common/language.py"):
        (copy / changed).write_text((copy / changed).read_text() + "\n# changed\n")
        assert code_digest(copy) != before
        before = code_digest(copy)
    (copy / "translation" / "read" / "new_stage.py").write_text("")
    assert code_digest(copy) != before


def test_the_code_files_hold_every_module_the_reading_imports() -> None:
    """Every module of this project that the reading imports (all of ``translation.read``
    imported, in a fresh interpreter) is among the files of its version."""
    program = (
        "import json, pkgutil, importlib, sys, translation.read as r\n"
        "for m in pkgutil.walk_packages(r.__path__, 'translation.read.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(json.dumps([getattr(m, '__file__', None) for m in list(sys.modules.values())]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = {Path(f).resolve() for f in json.loads(done.stdout) if f}
    # The project's own files: under its root, neither tests nor a virtual environment there.
    installed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix)}
    ours = {
        f
        for f in loaded
        if f.is_relative_to(ROOT)
        and f.relative_to(ROOT).parts[0] != "tests"
        and not any(f.is_relative_to(prefix) for prefix in installed)
    }
    assert ours, "the reading imported nothing of the project?"
    missing = ours - set(code_files(ROOT))
    assert not missing, f"add to CODE_FILES: {sorted(str(f.relative_to(ROOT)) for f in missing)}"
    assert all((ROOT / name).is_file() for name in CODE_FILES)


def test_the_folder_keeps_the_readings_used_last(tmp_path: Path) -> None:
    cache = ReadingCache(tmp_path, keep=2)
    readings = {name: Segmentation([], reference_pages=(n,)) for n, name in enumerate("abc")}
    for name in "ab":  # both written long ago
        cache.put(name, readings[name])
        os.utime(tmp_path / f"{name}.reading", (1, 1))
    assert cache.get("a") == readings["a"]  # used now: "b" is the one used longest ago
    cache.put("c", readings["c"])
    assert cache.get("b") is None
    assert cache.get("a") == readings["a"] and cache.get("c") == readings["c"]


def test_the_folder_keeps_no_more_bytes_than_its_bound(tmp_path: Path) -> None:
    one = Segmentation([], reference_pages=tuple(range(1000)))
    probe = ReadingCache(tmp_path / "probe")
    probe.put("x", one)
    size = (tmp_path / "probe" / "x.reading").stat().st_size
    cache = ReadingCache(tmp_path / "kept", max_bytes=int(2.5 * size))
    for n, name in enumerate("abcd"):
        cache.put(name, one)
        os.utime(tmp_path / "kept" / f"{name}.reading", (n + 1, n + 1))
    assert [p.stem for p in _entries(tmp_path / "kept")] == ["c", "d"]
    # A reading larger than an entry may be is not kept, and a file that large never loaded.
    small = ReadingCache(tmp_path / "small", max_entry_bytes=size - 1)
    small.put("a", one)
    assert list((tmp_path / "small").iterdir()) == []  # no entry, no temporary file left
    shutil.copy(tmp_path / "probe" / "x.reading", tmp_path / "small" / "x.reading")
    assert small.get("x") is None


def test_a_write_that_died_is_swept(tmp_path: Path) -> None:
    """A worker killed while it wrote (its step's time limit) leaves its temporary file:
    the next write takes it away once it is surely nobody's."""
    cache = ReadingCache(tmp_path)
    cache.put("a", Segmentation([]))
    dead, fresh = tmp_path / "dead.part", tmp_path / "fresh.part"
    dead.write_bytes(b"half a reading")
    fresh.write_bytes(b"being written")
    os.utime(dead, (time.time() - STALE_PART_S - 60,) * 2)
    cache.put("b", Segmentation([]))
    assert not dead.exists() and fresh.exists()
    assert [p.stem for p in _entries(tmp_path)] == ["a", "b"]


def test_an_entry_is_loaded_only_from_a_folder_no_one_else_may_write(tmp_path: Path) -> None:
    """An entry is a pickle, and loading one runs what it names: a folder another user may
    write into is not read (its entries are left alone), and the next write closes a folder
    of ours made under a looser umask."""
    folder = tmp_path / "readings"
    cache = ReadingCache(folder)
    reading = Segmentation([], reference_pages=(3,))
    cache.put("a", reading)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert cache.get("a") == reading
    folder.chmod(0o777)
    assert cache.get("a") is None
    assert (folder / "a.reading").exists()  # not ours to judge: left as it is
    cache.put("b", reading)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert cache.get("a") == reading and cache.get("b") == reading

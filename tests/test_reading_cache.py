"""translation.reading_cache: a paper read once is not read again by the next job's worker."""

from __future__ import annotations

import dataclasses
import os
import pickle
from pathlib import Path

from common.language import Language
from tests.helpers.pdfgen.textbox import small_paper
from translation.read.ocr import OcrOptions
from translation.read.pages.pdf_limits import PdfLimits
from translation.read.segmentation import Segmentation
from translation.reading_cache import ReadingCache, code_version
from translation.worker import PdfWorker, WorkerConfig

KO = Language("ko")


async def _read(
    paper: bytes, folder: Path, pages: list[int] | None = None, references: bool = False
) -> Segmentation:
    """The reading a fresh PDF worker (a job's) opens ``paper`` with, readings kept in
    ``folder``; every part it told early is among its paragraphs."""
    parts: list[str] = []
    async with PdfWorker(WorkerConfig(reading_cache=folder)) as worker:
        _, found = await worker.open(
            paper, None, pages, references, KO, on_part=lambda p: parts.extend(x.text for x in p)
        )
    assert set(parts) <= {p.text for p in found.paragraphs}
    return found


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.reading"))


async def test_a_paper_read_before_is_served_from_its_kept_reading(tmp_path: Path) -> None:
    paper = small_paper(3)
    first = await _read(paper, tmp_path)
    (entry,) = _entries(tmp_path)
    assert await _read(paper, tmp_path) == first
    # What the next job gets is what was kept: a kept reading marked as ours comes back.
    kept = pickle.loads(entry.read_bytes())
    marked = dataclasses.replace(kept.paragraphs[0], text="kept reading")
    entry.write_bytes(pickle.dumps(dataclasses.replace(kept, paragraphs=[marked])))
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
    assert len(_entries(tmp_path)) == 3


async def test_a_damaged_entry_is_read_again_and_written_anew(tmp_path: Path) -> None:
    paper = small_paper(2)
    first = await _read(paper, tmp_path)
    (entry,) = _entries(tmp_path)
    entry.write_bytes(b"not a reading")
    assert await _read(paper, tmp_path) == first
    assert pickle.loads(entry.read_bytes()) == first


def test_a_reading_made_by_other_code_is_not_served(tmp_path: Path) -> None:
    asked = (small_paper(1), None, False, PdfLimits(), OcrOptions())
    old, new = ReadingCache(tmp_path, version="old"), ReadingCache(tmp_path, version="new")
    old.put(old.key(*asked), Segmentation(paragraphs=[]))
    assert old.get(old.key(*asked)) == Segmentation(paragraphs=[])
    assert new.get(new.key(*asked)) is None
    # The code's version is a digest of its files, the same for every process.
    assert ReadingCache(tmp_path).version == code_version() and len(code_version()) == 64


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

"""Table fidelity: the share of tables whose every cell comes out right in the translation.

Each paper is translated with the pseudo translator of the tests (Hangul) and every table of
the source is checked in the output. A table is right when

* every numeric cell (no letters) is untouched: the same words at the same places;
* every piece of translated text in it lies inside one cell's box: a cell's box reaches
  halfway to its neighbours in the row (the column's free width) and down over free space, so
  a header row merged into one run, or a label pulled together with its numbers, leaves it;
* no translated text is smaller than 0.6x its cell's source text.

Where the tables are: the areas hand-listed in KNOWN_TABLES (checked by eye), elsewhere the
areas PyMuPDF's ``find_tables`` reports (slow: about a second a page). Its cell grids are not
used: they merge columns that no ruling line divides. The reference cells are the source words
of each MuPDF line, cut where words stand at least half a font size apart (cells of a tight
header row are set at least that far apart; word spaces are a quarter to a third).

    python -m bench.tables [CORPUS_DIR]
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pymupdf

Rect = tuple[float, float, float, float]
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
PAPERS = ("01", "02", "03", "04", "05", "07")
MIN_SCALE = 0.6
_TOLERANCE = 1.5  # points a translated glyph box may stick out of its cell's box

#: Table areas by paper and 0-based page, checked by eye against the rendered pages.
KNOWN_TABLES: dict[str, dict[int, list[Rect]]] = {
    "01": {6: [(72.0, 67.0, 526.0, 233.0), (309.0, 283.0, 524.0, 371.0)]},
    "03": {
        2: [(314.0, 72.0, 517.0, 180.0), (311.0, 263.0, 521.0, 354.0)],
        7: [(79.0, 72.0, 516.0, 360.0)],
    },
    "04": {
        5: [(82.0, 74.0, 513.0, 228.0), (95.0, 301.0, 265.0, 439.0)],
        # find_tables joins the tables of both columns and their captions here
        6: [(87.0, 74.0, 273.0, 189.0), (315.0, 74.0, 516.0, 131.0)],
        7: [(76.0, 74.0, 284.0, 188.0), (311.0, 74.0, 519.0, 236.0)],
    },
    # p3: an excerpt with highlighted phrases, not a table
    "05": {2: [], 6: [(110.0, 92.0, 501.0, 207.0)]},
}


@dataclass(slots=True)
class _Cell:
    box: Rect
    text: str
    size: float
    room: Rect = (0.0, 0.0, 0.0, 0.0)

    @property
    def numeric(self) -> bool:
        return not any(c.isalpha() for c in self.text)


def _translated(text: str) -> bool:
    return any("\uac00" <= c <= "\ud7af" or "\u3400" <= c <= "\u9fff" for c in text)


def reference_cells(page: pymupdf.Page, area: Rect) -> list[_Cell]:
    """The cells of the source table in ``area`` (see the module's docstring), each with its
    room: halfway to its row neighbours, and down to the next cell below it."""
    sizes: list[tuple[Rect, float]] = []
    for block in page.get_text("dict", clip=area)["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                sizes.append((tuple(span["bbox"]), float(span["size"])))

    def size_at(box: Rect) -> float:
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        found = [s for r, s in sizes if r[0] - 0.5 <= cx <= r[2] + 0.5 and r[1] <= cy <= r[3]]
        return max(found, default=0.0)

    cells: list[_Cell] = []
    lines: dict[tuple[int, int], list[tuple[Rect, str]]] = {}
    for x0, y0, x1, y1, text, block, line, _ in page.get_text("words", clip=area):
        lines.setdefault((block, line), []).append(((x0, y0, x1, y1), text))
    paragraphs = _paragraph_blocks(lines)
    for (block_number, _), words in lines.items():
        start = len(cells)
        words.sort(key=lambda w: w[0][0])
        if block_number in paragraphs:  # a cell of running text, its spaces stretched
            cells.append(_cell(words, size_at))
            continue
        group: list[tuple[Rect, str]] = []
        for box, text in words:
            size = size_at(box) or (box[3] - box[1])
            if group and box[0] - group[-1][0][2] >= 0.5 * size:
                cells.append(_cell(group, size_at))
                group = []
            group.append((box, text))
        cells.append(_cell(group, size_at))
        _rejoin_numbers(cells, start)
    for cell in cells:
        x0, y0, x1, y1 = cell.box
        row = [c for c in cells if c is not cell and _same_row(c.box, cell.box)]
        left = max((c.box[2] for c in row if c.box[2] <= x0), default=None)
        right = min((c.box[0] for c in row if c.box[0] >= x1), default=None)
        rx0 = (left + x0) / 2 if left is not None else area[0]
        rx1 = (x1 + right) / 2 if right is not None else area[2]
        below = [
            c.box[1]
            for c in cells
            if c.box[1] >= y1 - 0.5 and c.box[0] < rx1 and c.box[2] > rx0 and c is not cell
        ]
        cell.room = (rx0, y0, rx1, min(below, default=area[3]))
    return cells


def _paragraph_blocks(lines: Mapping[tuple[int, int], list[tuple[Rect, str]]]) -> set[int]:
    """Blocks of three or more rows all starting at one x: a cell's running text."""
    starts: dict[int, dict[int, float]] = {}
    for (block, _), words in lines.items():
        rows = starts.setdefault(block, {})
        base = round(max(b[3] for b, _ in words))
        rows[base] = min(rows.get(base, 1e9), min(b[0] for b, _ in words))
    return {
        b
        for b, rows in starts.items()
        if len(rows) >= 3 and max(rows.values()) - min(rows.values()) < 2.0
    }


def _rejoin_numbers(cells: list[_Cell], start: int) -> None:
    """A number between words of one line, less than a font size from both (justified text:
    "4 out of 5 annotators"), is part of the text, not a cell of its own."""
    i = max(start + 1, 1)
    while i < len(cells) - 1:
        left, cell, right = cells[i - 1], cells[i], cells[i + 1]
        size = max(left.size, cell.size, right.size)
        if (
            cell.numeric
            and not left.numeric
            and not right.numeric
            and cell.box[0] - left.box[2] < size
            and right.box[0] - cell.box[2] < size
        ):
            box = (left.box[0], min(left.box[1], right.box[1]), right.box[2], left.box[3])
            cells[i - 1 : i + 2] = [_Cell(box, f"{left.text} {cell.text} {right.text}", size)]
        else:
            i += 1


def _cell(group: list[tuple[Rect, str]], size_at: Callable[[Rect], float]) -> _Cell:
    box = (
        min(b[0] for b, _ in group),
        min(b[1] for b, _ in group),
        max(b[2] for b, _ in group),
        max(b[3] for b, _ in group),
    )
    size = max(size_at(b) for b, _ in group)
    return _Cell(box, " ".join(t for _, t in group), size)


def _same_row(a: Rect, b: Rect) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0.5 * min(a[3] - a[1], b[3] - b[1])


def _inside(box: Rect, room: Rect, tolerance: float = _TOLERANCE) -> bool:
    return (
        box[0] >= room[0] - tolerance
        and box[2] <= room[2] + tolerance
        and box[1] >= room[1] - tolerance
        and box[3] <= room[3] + tolerance
    )


def table_problems(source: pymupdf.Page, output: pymupdf.Page, area: Rect) -> list[str]:
    """What is wrong with the table in ``area`` of ``output`` (empty: every cell is right)."""
    cells = reference_cells(source, area)
    out_words = [
        ((x0, y0, x1, y1), text) for x0, y0, x1, y1, text, *_ in output.get_text("words", clip=area)
    ]
    problems: list[str] = []
    for cell in cells:
        if not cell.numeric:
            continue
        src = [t for t in cell.text.split()]
        got = [t for b, t in out_words if _inside(b, cell.box, 1.0)]
        if got != src:
            problems.append(f"numeric cell {cell.text!r} at {_fmt(cell.box)} became {got!r}")
    text_cells = [c for c in cells if not c.numeric]
    for text, box, size in text_runs(output, area):
        if not _translated(text):
            continue
        home = [c for c in text_cells if _inside(box, c.room)]
        if not home:
            problems.append(f"{text!r} at {_fmt(box)} is in no cell")
        elif size < MIN_SCALE * min(c.size for c in home) - 0.05:
            problems.append(f"{text!r} at {_fmt(box)} is set at {size:.1f}")
    return problems


def text_runs(page: pymupdf.Page, area: Rect) -> list[tuple[str, Rect, float]]:
    """The runs of text of ``page`` in ``area``: its spans, cut where two glyphs stand apart
    with no space between them (text extraction joins the translations of neighbouring cells
    set in one font into one span). Each with the core of its glyphs' box (baseline up to
    x-height and a bit: the output fonts' boxes reach far higher and lower than the source
    words') and its font size."""
    runs: list[tuple[str, Rect, float]] = []
    for block in page.get_text("rawdict", clip=area)["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                size, base = span["size"], span["origin"][1]
                chars: list[tuple[str, float, float]] = []
                for char in span["chars"]:
                    x0, x1 = char["bbox"][0], char["bbox"][2]
                    if chars and x0 - chars[-1][2] > 0.2 * size and chars[-1][0] != " ":
                        runs.append(_run(chars, base, size))
                        chars = []
                    chars.append((char["c"], x0, x1))
                if chars:
                    runs.append(_run(chars, base, size))
    return runs


def _run(
    chars: list[tuple[str, float, float]], base: float, size: float
) -> tuple[str, Rect, float]:
    text = "".join(c for c, _, _ in chars)
    return text, (chars[0][1], base - 0.6 * size, chars[-1][2], base), size


def _fmt(box: Sequence[float]) -> str:
    return "(" + ", ".join(f"{v:.0f}" for v in box) + ")"


def table_areas(paper: str, page: pymupdf.Page) -> list[Rect]:
    known = KNOWN_TABLES.get(paper, {}).get(page.number)
    if known is not None:
        return known
    return [tuple(t.bbox) for t in page.find_tables().tables]


def translate_pages(data: bytes, pages: Sequence[int]) -> pymupdf.Document:
    """``pages`` of the PDF ``data`` translated with the pseudo translator of the tests."""
    from tests.fakes.pseudo import pseudo_translate
    from translation.pdf import render_mono
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs
    from translation.read.math.formulas import restore

    paras = extract_paragraphs(open_document(data), pages=list(pages))
    wanted = set(pages)
    paras = [p for p in paras if p.page in wanted]
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paras}
    return pymupdf.open(stream=render_mono(open_document(data), paras, translations, "ko"))


def paper_problems(
    path: Path, pages: Sequence[int] | None = None
) -> list[tuple[int, Rect, list[str]]]:
    """(page, table area, problems) for every table of the paper (or of its ``pages``)."""
    data = path.read_bytes()
    source = pymupdf.open(stream=data)
    paper = path.name[:2]
    wanted = list(range(source.page_count)) if pages is None else list(pages)
    areas = {i: table_areas(paper, source[i]) for i in wanted}
    with_tables = [i for i in wanted if areas[i]]
    if not with_tables:
        return []
    output = translate_pages(data, with_tables)
    return [
        (i, area, table_problems(source[i], output[i], area))
        for i in with_tables
        for area in areas[i]
    ]


def table_scores(
    corpus_dir: Path, pages: Mapping[str, Sequence[int]] | None = None
) -> list[tuple[str, int, int]]:
    """(paper, tables, tables all right) for each paper of the corpus; ``pages`` limits the
    check to some 0-based pages of some papers (by the paper's two-digit number)."""
    scores = []
    for number in PAPERS if pages is None else sorted(pages):
        path = next(iter(sorted(corpus_dir.glob(f"{number}_*.pdf"))), None)
        if path is None:
            continue
        found = paper_problems(path, None if pages is None else pages[number])
        scores.append((path.stem, len(found), sum(1 for *_, p in found if not p)))
    return scores


def run(corpus_dir: Path = CORPUS) -> str:
    rows = [f"{'paper':<60} {'tables':>6} {'right':>6} {'share':>6}"]
    for paper, tables, right in table_scores(corpus_dir):
        share = f"{right / tables:.0%}" if tables else "-"
        rows.append(f"{paper:<60} {tables:>6} {right:>6} {share:>6}")
    return "\n".join(rows)


def main() -> None:
    print(run(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS))


if __name__ == "__main__":
    main()

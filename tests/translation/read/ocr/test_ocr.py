"""Scanned papers through OCR (issue 14): corpus 10 is 02 rendered to black-and-white images,
its even pages skewed 0.6 degrees. Read by OCR, its words must reach the LLM as 02's do, the
mono output must carry the translation on every page with the scanned English covered, and a
document of text pages and scanned pages is read page by page.

OCR costs seconds a page: the scanned documents here are 1-3 pages cut from corpus 10, the three
read at the default resolution once per module.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from common.errors import NoTextLayerError, PDFProcessingError
from common.language import Language
from tests.conftest import CORPUS_DIR
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.ocr import needs_ocr, ocr_missing
from translation.outputs import render_dual
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.math.formulas import restore
from translation.read.ocr import OcrMode, OcrOptions, OcrUnavailableError
from translation.read.ocr.covers import background, cover_boxes
from translation.read.ocr.drawings import graphic_regions, with_labels
from translation.read.ocr.ink import ink_band
from translation.read.ocr.languages import missing_data_message, tesseract_language
from translation.read.ocr.lines import Word, find_gutter, ocr_layout, split_line, word_space
from translation.read.ocr.pages import is_scanned
from translation.read.ocr.pool import ocr_processes
from translation.read.ocr.sizes import even_sizes, line_sizes
from translation.read.paragraph import Paragraph
from translation.worker import PdfWorker, WorkerConfig
from zotero_server.file_names import FileKind
from zotero_server.protocol import Operation, PluginRequest, ocr_request

#: Pages (0-based) of corpus 10 read here: the first, a skewed one with a table, the last.
PAGES = (0, 3, 7)


def _pages(path: Path, pages: tuple[int, ...]) -> bytes:
    out = pymupdf.open()
    with pymupdf.open(path) as src:
        for number in pages:
            out.insert_pdf(src, from_page=number, to_page=number)
    return bytes(out.tobytes())


def _paper(corpus_dir: Path, number: str) -> Path:
    (path,) = corpus_dir.glob(f"{number}_*.pdf")
    return path


def _words(text: str) -> Counter[str]:
    return Counter(re.findall(r"[a-z]{2,}", text.lower()))


def _translate(paragraphs: list[Paragraph]) -> dict[str, str]:
    return {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}


class Scan:
    def __init__(self, corpus_dir: Path) -> None:
        self.data = _pages(_paper(corpus_dir, "10"), PAGES)
        self.text = _pages(_paper(corpus_dir, "02"), PAGES)
        # The references too: the last page holds nothing else.
        # Read as the PDF worker reads a scan: a page per core at once (the same paragraphs as one
        # page at a time, tests/translation/read/ocr/test_ocr_pool.py), in less time.
        ocr = OcrOptions(processes=ocr_processes(0))
        self.paragraphs = extract_paragraphs(
            open_document(self.data), include_references=True, ocr=ocr
        )
        self.reference = extract_paragraphs(open_document(self.text), include_references=True)
        translations = _translate(self.paragraphs)
        self.mono = render_mono(open_document(self.data), self.paragraphs, translations, "ko")


@pytest.fixture(scope="module")
def scan() -> Scan:
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"corpus not found at {CORPUS_DIR}")
    return Scan(CORPUS_DIR)


# --- pure rules ------------------------------------------------------------------------------


def test_a_page_is_scanned_when_an_image_covers_it_and_it_has_no_text() -> None:
    assert is_scanned(0, [(0, 0, 600, 800)], 600, 800)
    assert not is_scanned(12, [(0, 0, 600, 800)], 600, 800)  # a text layer: read it
    assert not is_scanned(0, [(50, 50, 200, 200)], 600, 800)  # a figure on an empty page
    assert not is_scanned(0, [], 600, 800)


def test_languages_map_to_tesseract_names() -> None:
    assert tesseract_language(Language.parse("en")) == "eng"
    assert tesseract_language(Language.parse("zh-CN")) == "chi_sim"
    assert tesseract_language(Language.parse("ko-KR")) == "kor"
    assert tesseract_language(Language.parse("ja")) == "jpn"


def test_the_missing_data_error_names_the_debian_packages() -> None:
    message = missing_data_message("chi_sim", "/usr/share/tessdata")
    assert "tesseract-ocr tesseract-ocr-chi-sim" in message
    assert "\n" not in message
    assert "tesseract-ocr-eng" in missing_data_message("eng", None)


def _word(text: str, x0: float, x1: float, y0: float = 100.0) -> Word:
    return (text, (x0, y0, x1, y0 + 13.0))


def test_a_line_across_the_gutter_of_a_skewed_scan_is_cut_into_its_columns() -> None:
    # Tesseract joins the two columns of a skewed page into one line, with a speck between.
    left = [_word(f"w{i}", 72 + 30 * i, 95 + 30 * i) for i in range(7)]  # ends at 275
    right = [_word(f"v{i}", 306 + 30 * i, 330 + 30 * i) for i in range(7)]
    lines = [left, right] * 10 + [[*left, _word("—_", 288, 296), *right]]
    gutter = find_gutter(lines, 595.0)
    assert gutter is not None and 275 <= gutter[0] and gutter[1] <= 306
    pieces = split_line(lines[-1], gutter)
    assert [[t for t, _ in piece] for piece in pieces] == [
        [t for t, _ in left],
        [t for t, _ in right],
    ]
    # A title running through the gutter stays one line.
    title = [_word("Construction", 120, 250), _word("of", 255, 270), _word("Graphs", 275, 480)]
    assert len(split_line(title, gutter)) == 1


def test_a_line_taller_than_its_text_takes_its_size_from_its_width_per_character() -> None:
    # Body lines of 40 characters, 200 pt wide, 11.5 pt high; one of them 16 pt high (skewed
    # or joined with a figure's label by Tesseract) and a short title-size line.
    boxes = [(72.0, 100.0 + 14 * i, 272.0, 111.5 + 14 * i) for i in range(6)]
    boxes.append((72.0, 200.0, 272.0, 216.0))
    chars = [40] * 7
    sizes = line_sizes(boxes, chars)
    assert sizes[-1] <= 1.12 * sizes[0] < 16.0 / 1.05  # not the box's 15.2
    assert even_sizes(sizes, chars)[-1] == even_sizes(sizes, chars)[0]
    title = line_sizes([*boxes, (100.0, 30.0, 400.0, 46.0)], [*chars, 30])[-1]
    assert title > 1.3 * sizes[0]


def test_covers_reach_the_whole_of_a_slanted_line() -> None:
    # A band of an 11 pt line 216 pt wide (rows.make_row): the cover holds the ascenders,
    # descenders and the 0.6 degree rise at both ends.
    band = (72.0, 100.0 - 0.6 * 11, 288.0, 100.0 - 0.1 * 11)
    (cover,) = cover_boxes([band])
    rise = 216 * 0.0105
    assert cover[1] <= 100.0 - 0.75 * 11 - rise / 2
    assert cover[3] >= 100.0 + 0.22 * 11 + rise / 2
    assert cover[0] < 72.0 and cover[2] > 288.0


def test_the_background_is_the_common_light_colour_around_a_word() -> None:
    paper = (250, 240, 220)
    ink = [(20, 20, 20)] * 30 + [(120, 120, 120)] * 30  # strokes of the lines nearby
    assert background([paper] * 40 + ink) == pytest.approx(tuple(v / 255 for v in paper))
    assert background([]) == (1.0, 1.0, 1.0)


def test_plugin_ocr_flags() -> None:
    assert ocr_request({}) is None
    assert ocr_request({"ocr": "false", "autoOcr": "true"}) == "auto"
    assert ocr_request({"ocr": "true", "autoOcr": "false"}) == "always"
    assert ocr_request({"ocr": "false", "autoOcr": "false"}) == "never"
    base = {
        "operation": "translate",
        "file_name": "a.pdf",
        "stem": "a",
        "kind": "origin",
        "pdf": b"",
        "source_lang": Language.parse("en"),
        "target_lang": Language.parse("ko"),
        "outputs": (),
    }
    asked = PluginRequest(**base, ocr="always")  # type: ignore[arg-type]
    assert asked.ocr_mode("auto") == "always"
    assert asked.ocr_mode("never") == "never"  # the server's off switch wins
    assert PluginRequest(**base).ocr_mode("always") == "always"  # type: ignore[arg-type]


# --- the corpus ------------------------------------------------------------------------------

pytestmark = pytest.mark.corpus


@needs_ocr("en")
def test_the_scanned_papers_body_words_reach_the_llm(scan: Scan) -> None:
    for page in range(len(PAGES)):
        sent = _words(" ".join(p.text for p in scan.paragraphs if p.page == page))
        wanted = _words(" ".join(p.text for p in scan.reference if p.page == page))
        found = sum((sent & wanted).values())
        assert found >= 0.9 * sum(wanted.values()), (PAGES[page], found, sum(wanted.values()))


@needs_ocr("en")
def test_every_page_carries_the_translation_where_the_scan_had_text(scan: Scan) -> None:
    out = pymupdf.open(stream=scan.mono)
    for number, page in enumerate(out):
        mine = [p for p in scan.paragraphs if p.page == number and p.kind in ("body", "reference")]
        assert mine
        spans = [
            s
            for b in page.get_text("dict")["blocks"]
            for ln in b.get("lines", ())
            for s in ln["spans"]
            if re.search("[\uac00-\ud7a3]", s["text"])
        ]
        # Hangul inside most body paragraphs' boxes.
        inside = sum(
            any(
                p.bbox[0] - 2 <= s["bbox"][0]
                and s["bbox"][2] <= p.bbox[2] + 30
                and p.bbox[1] - 4 <= s["bbox"][1] <= p.bbox[3]
                for s in spans
            )
            for p in mine
        )
        assert inside >= 0.9 * len(mine), (PAGES[number], inside, len(mine))


def _ink(page: pymupdf.Page, boxes: list[tuple[float, float, float, float]]) -> int:
    """Dark pixels (at 100 dpi) of ``page`` inside ``boxes``."""
    pix = page.get_pixmap(dpi=100, colorspace=pymupdf.csGRAY, alpha=False)
    scale, samples, dark = 100 / 72, pix.samples, 0
    for x0, y0, x1, y1 in boxes:
        for y in range(max(0, int(y0 * scale)), min(pix.height, int(y1 * scale) + 1)):
            row = y * pix.width
            for x in range(max(0, int(x0 * scale)), min(pix.width, int(x1 * scale) + 1)):
                dark += samples[row + x] < 128
    return dark


@needs_ocr("en")
def test_the_scanned_english_is_not_readable_under_the_translation(scan: Scan) -> None:
    # The output with its text taken away shows what is left of the scan: around the body
    # paragraphs and reference entries sent, the ink of the English words must be gone.
    out = pymupdf.open(stream=scan.mono)
    source = pymupdf.open(stream=scan.data)
    for number, page in enumerate(out):
        page.add_redact_annot(page.rect)
        page.apply_redactions(
            images=pymupdf.PDF_REDACT_IMAGE_NONE, graphics=pymupdf.PDF_REDACT_LINE_ART_NONE
        )
        assert not page.get_text().strip()
        boxes = [
            (p.bbox[0] - 1, p.bbox[1] - 1, p.bbox[2] + 1, p.bbox[3] + 1)
            for p in scan.paragraphs
            if p.page == number and p.kind in ("body", "reference")
        ]
        before, after = _ink(source[number], boxes), _ink(page, boxes)
        assert before > 5000
        assert after <= 0.03 * before, (PAGES[number], after, before)


@needs_ocr("en")
def test_the_dual_output_shows_the_scan_beside_the_translation(scan: Scan) -> None:
    dual = pymupdf.open(stream=render_dual(scan.data, scan.mono))
    assert dual.page_count == len(PAGES)
    page = dual[0]
    assert page.rect.width == pytest.approx(2 * pymupdf.open(stream=scan.data)[0].rect.width)
    assert any(kind.endswith("image") for kind, _ in page.get_bboxlog())  # the scan, left
    assert re.search("[\uac00-\ud7a3]", page.get_text())  # the translation, right


@needs_ocr("en")
def test_a_document_of_text_and_scanned_pages_is_read_page_by_page(corpus_dir: Path) -> None:
    text_page = _pages(_paper(corpus_dir, "02"), (0,))
    scanned_page = _pages(_paper(corpus_dir, "10"), (1,))
    joined = pymupdf.open(stream=text_page)
    joined.insert_pdf(pymupdf.open(stream=scanned_page))
    data = joined.tobytes()
    ocr = OcrOptions(dpi=200)
    paragraphs = extract_paragraphs(open_document(data), ocr=ocr)
    # The text page is read from its text layer (OCR would misread a few words)...
    first = _words(" ".join(p.text for p in paragraphs if p.page == 0))
    alone = _words(" ".join(p.text for p in extract_paragraphs(open_document(text_page))))
    assert first == alone
    # ... and the scanned one by OCR.
    second = _words(" ".join(p.text for p in paragraphs if p.page == 1))
    assert sum(second.values()) > 300
    mono = pymupdf.open(
        stream=render_mono(open_document(data), paragraphs, _translate(paragraphs), "ko")
    )
    for page in mono:
        assert re.search("[\uac00-\ud7a3]", page.get_text())
    # The text page's English left with its glyphs, and no cover hides its figure.
    assert "Semantic Scholar" not in mono[0].get_text()
    assert not [d for d in mono[0].get_drawings() if d["fill"] and d["rect"].height < 20]


def test_ocr_off_keeps_the_no_text_layer_error(corpus_dir: Path) -> None:
    data = _pages(_paper(corpus_dir, "10"), (0,))
    with pytest.raises(NoTextLayerError, match="OCR.*never"):
        open_document(data, ocr=OcrOptions(OcrMode.NEVER))


def test_missing_language_data_names_the_package(corpus_dir: Path) -> None:
    if ocr_missing("de") is None:
        pytest.skip("German Tesseract data is installed here")
    data = _pages(_paper(corpus_dir, "10"), (0,))
    with pytest.raises(OcrUnavailableError, match="tesseract-ocr tesseract-ocr-deu"):
        open_document(data, ocr=OcrOptions(language=Language.parse("de")))


@needs_ocr("en")
def test_the_worker_reads_scanned_pages_under_a_time_limit_per_page(corpus_dir: Path) -> None:
    data = _pages(_paper(corpus_dir, "10"), (7,))

    async def run(config: WorkerConfig) -> int:
        async with PdfWorker(config) as worker:
            await worker.inspect(data, None, OcrOptions())
            ocr = OcrOptions(dpi=150)
            count, extracted = await worker.open(data, None, None, True, Language.parse("ko"), ocr)
            return len(extracted.paragraphs)

    assert asyncio.run(run(WorkerConfig())) > 10
    # The OCR of a page (seconds) cannot finish in a hundredth of a second: the worker is
    # stopped, whatever time the step has, and the job gets the limit's name.
    tight = WorkerConfig(timeout_s=120.0, ocr_page_timeout_s=0.01)
    with pytest.raises(PDFProcessingError, match="ZT_OCR_PAGE_TIMEOUT_S"):
        asyncio.run(run(tight))


def test_a_line_box_joined_with_a_drawing_is_cut_down_to_its_text() -> None:
    # Tesseract gave the line the height of the drawing beside it (40 pt); its ink (2 pixel
    # rows a point) is a band 11 pt high starting 6 pt down, where the text box is centred.
    rows = [0] * 12 + [30] * 22 + [0] * 46
    assert ink_band(rows, 22) == 12
    assert ink_band(rows, 26) == 10
    assert ink_band([0] * 30, 22) is None
    body = [  # the lines below it, boxes as high as their text
        {"spans": [{"text": "for organizing published scientific li", "bbox": box}]}
        for box in [(89, 270 + 13.5 * i, 273, 281.5 + 13.5 * i) for i in range(8)]
    ]
    tall = {
        "spans": [
            {"text": "We describe a deployed", "bbox": (89, 222, 200, 262)},
            {"text": " scalable system", "bbox": (200, 222, 273, 262)},
        ]
    }
    raw = {"blocks": [{"type": 0, "lines": [tall, *body]}]}
    layout = ocr_layout(raw, 0, 595, 842, ink=lambda box: rows)
    line = min((ln for b in layout.blocks for ln in b.lines), key=lambda ln: ln.bbox[1])
    size = line.spans[0].size
    assert line.bbox[1] + 0.5 * (line.bbox[3] - line.bbox[1]) == pytest.approx(222 + 6 + 5.5, abs=1)
    assert line.bbox[3] - line.bbox[1] == pytest.approx(1.05 * size)
    assert [s.text for s in line.spans] == ["We describe a deployed ", "scalable system"]


def test_drawings_in_a_scan_are_figures_and_rules_and_text_are_not() -> None:
    # A 100 x 100 pixel page at 0.25 pixels a point (400 x 400 pt): a drawn box of 20 x 20
    # pixels, a table rule one pixel high, and a line of text (its band given).
    width = height = 100
    dark = [False] * (width * height)
    for i in range(10, 30):
        for j in (10, 29):
            dark[j * width + i] = dark[i * width + j] = True
    for i in range(40, 95):
        dark[60 * width + i] = True  # the rule
        dark[80 * width + i] = dark[81 * width + i] = True  # the text's ink
    text_band = (160.0, 318.0, 380.0, 328.0)
    (figure,) = graphic_regions(dark, width, height, [text_band], 0.25)
    assert figure[0] <= 40 and figure[1] <= 40 and figure[2] >= 120 and figure[3] >= 120
    assert figure[3] < 240  # neither the rule nor the text
    # A label under the drawing joins it; a line of running text beside it does not.
    label = ((50.0, 126.0, 90.0, 136.0), 1)
    body = ((130.0, 60.0, 390.0, 72.0), 9)
    (grown,) = with_labels([figure], [label, body])
    assert grown[3] >= 136 and grown[2] < 130


def test_korean_and_chinese_words_are_joined_as_they_are_written() -> None:
    # Tesseract reads Korean and Chinese one character a word.
    assert not word_space("감", "염", 1.0, 10.0)  # a sliver inside a Korean word
    assert word_space("감염병", "또는", 3.5, 10.0)  # a Korean word space
    assert not word_space("参", "考", 4.0, 10.0)  # Chinese has no spaces
    assert word_space("graph", "nodes", 1.0, 10.0)
    assert word_space("표", "1]", 0.5, 10.0)


def test_a_resumed_job_keeps_the_ocr_mode_it_was_asked_for() -> None:
    base = {
        "operation": Operation.TRANSLATE,
        "file_name": "a.pdf",
        "stem": "a",
        "kind": FileKind.ORIGIN,
        "pdf": b"",
        "source_lang": Language.parse("en"),
        "target_lang": Language.parse("ko"),
        "outputs": (),
    }
    for ocr in ("always", None):
        request = PluginRequest(**base, ocr=ocr)  # type: ignore[arg-type]
        assert PluginRequest.from_record(request.to_record()).ocr == ocr


def test_a_scan_with_its_own_invisible_text_layer_has_its_words_covered(
    corpus_dir: Path,
) -> None:
    # What scanners and OCR tools write: the page image, and the words as invisible text.
    with pymupdf.open(_paper(corpus_dir, "02")) as text:
        sandwich = pymupdf.open()
        page = sandwich.new_page(width=text[0].rect.width, height=text[0].rect.height)
        page.insert_image(page.rect, pixmap=text[0].get_pixmap(dpi=150))
        for block in text[0].get_text("dict")["blocks"]:
            for line in block.get("lines", ()):
                for span in line["spans"]:
                    page.insert_text(
                        span["origin"], span["text"], fontsize=span["size"], render_mode=3
                    )
        data = sandwich.tobytes()
    paragraphs = extract_paragraphs(open_document(data))  # its text layer: no OCR
    assert len(paragraphs) > 10
    mono = pymupdf.open(
        stream=render_mono(open_document(data), paragraphs, _translate(paragraphs), "ko")
    )
    out = mono[0]
    out.add_redact_annot(out.rect)
    out.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_NONE, graphics=pymupdf.PDF_REDACT_LINE_ART_NONE
    )
    boxes = [
        (p.bbox[0] - 1, p.bbox[1] - 1, p.bbox[2] + 1, p.bbox[3] + 1)
        for p in paragraphs
        if p.kind == "body"
    ]
    before, after = _ink(pymupdf.open(stream=data)[0], boxes), _ink(out, boxes)
    assert before > 5000
    assert after <= 0.05 * before, (after, before)


# --- the defects seen on corpus 10's pages 1 and 4 (issue 14 follow-up) -------------------


def _where(scan: Scan, page: int, text: str) -> pymupdf.Rect:
    """Where ``text`` is printed on ``page`` of the scan: found in 02's text layer."""
    (found, *_) = pymupdf.open(stream=scan.text)[page].search_for(text)
    return pymupdf.Rect(found)


def _scan_left(scan: Scan, page: int) -> pymupdf.Page:
    """The output's ``page`` with its text taken away: what is left of the scan."""
    out = pymupdf.open(stream=scan.mono)[page]
    out.add_redact_annot(out.rect)
    out.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_NONE, graphics=pymupdf.PDF_REDACT_LINE_ART_NONE
    )
    return out


@needs_ocr("en")
def test_a_line_whose_box_tesseract_stretched_over_its_neighbours_is_covered(scan: Scan) -> None:
    # Page 1's abstract: "tasks (e.g., entity extraction and linking)," and page 4's "et al.,
    # 2013) titled "Clinical review: Efficacy of" (whose previous line Tesseract missed).
    source = pymupdf.open(stream=scan.data)
    for page, text in ((0, "entity extraction and linking"), (1, "2013) titled")):
        box = _where(scan, page, text)
        before, after = _ink(source[page], [tuple(box)]), _ink(_scan_left(scan, page), [tuple(box)])
        assert before > 100
        assert after <= 0.03 * before, (text, after, before)


@needs_ocr("en")
def test_a_misread_body_line_is_not_set_as_a_heading(scan: Scan) -> None:
    # Page 4: Tesseract read "To give an example for the type of errors" as "To oil an then le
    # a" type of errors": 28 characters for 41, so its width per character said 16 pt.
    at = _where(scan, 1, "To give an example")
    body = sorted(p.font_size for p in scan.paragraphs if p.page == 1 and p.kind == "body")
    there = [p for p in scan.paragraphs if p.page == 1 and pymupdf.Rect(p.bbox).intersects(at)]
    assert there
    for para in there:
        assert para.kind != "heading", para.text
        assert para.font_size <= 1.1 * body[len(body) // 2], para.text


@needs_ocr("en")
def test_the_numbers_of_a_scanned_table_are_not_overlapped(scan: Scan) -> None:
    # Page 4, Table 2: the table's rules were read as "|" words, "Hybrid | 91.5" made one
    # cell, and its translation was set over the numbers.
    out = pymupdf.open(stream=scan.mono)[1]
    hangul = [
        pymupdf.Rect(s["bbox"])
        for b in out.get_text("dict")["blocks"]
        for ln in b.get("lines", ())
        for s in ln["spans"]
        if re.search("[\uac00-\ud7a3]", s["text"])
    ]
    for number in ("98.4", "91.5", "97.4", "1990", "873"):
        cell = _where(scan, 1, number)
        assert not [h for h in hangul if (h & cell).get_area() > 0.1 * cell.get_area()], number

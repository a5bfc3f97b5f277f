"""Scanned pages: when to OCR a page, the OCR call, and its text as our layout.

A scanned page has no text, only an image covering it; its words are pixels. Such a page is
read by Tesseract through PyMuPDF (``Page.get_textpage_ocr``), and what the OCR found becomes a
:class:`~translation.read.layout.PageLayout` like any other page's, so segmentation needs no special
case. Rendering cannot remove pixels glyph by glyph: the words are covered by boxes of the
page's background colour (:func:`cover_boxes`, :func:`background`), the image stays for the
figures, and the translation is set over the boxes.

Tesseract's line boxes are ink boxes, and on a skewed scan a line's box grows by its width
times the skew; MuPDF puts every word of a line in the line's box and the baseline at its
bottom. :func:`ocr_layout` therefore takes a line's font size from its height or, where that is
inflated by skew, from the distance to its neighbour lines, and puts the baseline a descent
above the middle of the slant; the covers reach the whole slanted line (:func:`cover_boxes`).

Everything but :func:`read_ocr_page`, :func:`tessdata` and :func:`needs_ocr` is pure.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pymupdf

from common.errors import NoTextLayerError, UnsupportedLanguageError
from translation.read.layout import Block, Line, PageLayout, Rect, Span, union

#: Resolution the page is rendered at for Tesseract: enough for 7 pt footnotes.
OCR_DPI = 300
#: The font name OCR'd spans carry (MuPDF's own, kept so a reader of the layout can tell).
OCR_FONT = "GlyphLessFont"
#: Ink box height / font size of a line of Latin text (ascender top to descender bottom).
INK_HEIGHT = 1.05
#: Baseline distance / font size assumed when the size comes from the neighbour lines.
LEADING = 1.2
#: Descender depth / font size: how far the ink box's bottom lies below the baseline.
DESCENT = 0.25
#: Largest skew (degrees) the covers allow for.
MAX_SKEW_DEG = 1.0


class OcrMode(StrEnum):
    AUTO = "auto"  # OCR the pages without text that an image covers
    ALWAYS = "always"  # OCR every page, ignoring its text layer
    NEVER = "never"


@dataclass(frozen=True)
class OcrOptions:
    """How a document's pages are read: ``mode`` and the source ``language`` (our code)."""

    mode: OcrMode = OcrMode.AUTO
    language: str = "en"
    dpi: int = OCR_DPI


#: Pages without text that a scan covers are read by OCR, in English.
DEFAULT_OCR = OcrOptions()


class OcrUnavailableError(NoTextLayerError):
    """A page needs OCR and Tesseract or its data for the source language is missing."""

    error_type = "OcrUnavailable"


# --- languages ------------------------------------------------------------------------------

#: Our (the model's) language codes -> Tesseract's.
TESSERACT_LANGUAGES: dict[str, str] = {
    "ar": "ara", "bg": "bul", "bn": "ben", "ca": "cat", "cs": "ces", "da": "dan", "de": "deu",
    "el": "ell", "en": "eng", "es": "spa", "et": "est", "fa": "fas", "fi": "fin", "fil": "fil",
    "fr": "fra", "gu": "guj", "he": "heb", "hi": "hin", "hr": "hrv", "hu": "hun", "id": "ind",
    "is": "isl", "it": "ita", "ja": "jpn", "kn": "kan", "ko": "kor", "lt": "lit", "lv": "lav",
    "ml": "mal", "mr": "mar", "nl": "nld", "no": "nor", "pa": "pan", "pl": "pol", "pt": "por",
    "ro": "ron", "ru": "rus", "sk": "slk", "sl": "slv", "sr": "srp", "sv": "swe", "sw": "swa",
    "ta": "tam", "te": "tel", "th": "tha", "tr": "tur", "uk": "ukr", "ur": "urd", "vi": "vie",
    "zh-Hans": "chi_sim", "zh-Hant": "chi_tra",
}  # fmt: skip


def tesseract_language(code: str) -> str:
    """Tesseract's name for our language ``code`` (``zh-CN`` -> ``chi_sim``)."""
    from translation.model.prompts import model_language_code

    model = model_language_code(code)
    if model not in TESSERACT_LANGUAGES:
        raise UnsupportedLanguageError(f"no OCR for the source language {code!r}")
    return TESSERACT_LANGUAGES[model]


def debian_packages(tess_lang: str) -> str:
    """The Debian packages that give Tesseract the language ``tess_lang``."""
    return f"tesseract-ocr tesseract-ocr-{tess_lang.replace('_', '-').lower()}"


def missing_data_message(tess_lang: str, found: str | None) -> str:
    """The one-line error for a scanned page when Tesseract or its ``tess_lang`` data is
    missing (``found``: the tessdata folder, None when there is no Tesseract at all)."""
    what = "Tesseract" if found is None else f"Tesseract's {tess_lang!r} data (not in {found})"
    return (
        f"the PDF has no text layer: it is scanned and needs OCR, but {what} is not installed;"
        f" install the Debian packages {debian_packages(tess_lang)}"
    )


@functools.lru_cache(maxsize=1)
def _tessdata_folder() -> str | None:
    try:
        folder = pymupdf.get_tessdata()
    except Exception:  # PyMuPDF raises RuntimeError when it finds no Tesseract
        return None
    return str(folder) if folder and os.path.isdir(folder) else None


def tessdata(language: str) -> str:
    """The tessdata folder holding ``language``'s data (our code); ``OcrUnavailableError``
    naming the packages to install when there is none."""
    tess = tesseract_language(language)
    folder = _tessdata_folder()
    if folder is None or not os.path.isfile(os.path.join(folder, f"{tess}.traineddata")):
        raise OcrUnavailableError(missing_data_message(tess, folder))
    return folder


# --- which pages --------------------------------------------------------------------------------


def is_scanned(text_chars: int, images: Sequence[Rect], width: float, height: float) -> bool:
    """Whether a page is a scan: no text, and images covering at least half of it."""
    if text_chars or width <= 0 or height <= 0:
        return False
    covered = sum(max(0.0, r[2] - r[0]) * max(0.0, r[3] - r[1]) for r in images)
    return covered >= 0.5 * width * height


def needs_ocr(page: pymupdf.Page, mode: OcrMode, text_flags: int) -> bool:
    """Whether ``page`` is read by OCR under ``mode``."""
    if mode is OcrMode.NEVER:
        return False
    if mode is OcrMode.ALWAYS:
        return True
    if page.get_text("text", flags=text_flags).strip():
        return False
    images = [tuple(rect) for kind, rect in page.get_bboxlog() if kind.endswith("image")]
    box = page.rect
    return is_scanned(0, images, box.width, box.height)


def words_are_pixels(page: pymupdf.Page, mode: OcrMode, text_flags: int) -> bool:
    """Whether the words of ``page`` are pixels of a scan, to be painted over rather than
    removed glyph by glyph: a page read by OCR, or a scan that carries its own OCR text layer
    (invisible text over an image covering the page: removing that text leaves the words of
    the image)."""
    if needs_ocr(page, mode, text_flags):
        return True
    images = [tuple(rect) for kind, rect in page.get_bboxlog() if kind.endswith("image")]
    if not is_scanned(0, images, page.rect.width, page.rect.height):
        return False
    traced = page.get_texttrace()
    return bool(traced) and all(t["type"] == 3 for t in traced)  # 3: invisible


# --- the OCR call ---------------------------------------------------------------------------


def read_ocr_page(
    page: pymupdf.Page, options: OcrOptions, text_flags: int, figures: Sequence[Rect]
) -> PageLayout:
    """OCR ``page`` (the whole page as rendered) and return its layout."""
    folder = tessdata(options.language)
    textpage = page.get_textpage_ocr(
        flags=text_flags,
        language=tesseract_language(options.language),
        dpi=options.dpi,
        full=True,
        tessdata=folder,
    )
    raw = page.get_text("dict", textpage=textpage, flags=text_flags)
    box = page.rect
    layout = ocr_layout(raw, page.number, box.width, box.height, figures, _page_ink(page))
    lines = [_text_band(ln) for b in layout.blocks for ln in b.lines]
    pix = page.get_pixmap(dpi=round(72 * GRAPHIC_SCALE), colorspace=pymupdf.csGRAY)
    dark = [v < 220 for v in pix.samples] if pix.stride == pix.width else []
    drawn = graphic_regions(dark, pix.width, pix.height, lines, GRAPHIC_SCALE)
    labels = [(ln.bbox, len(ln.spans)) for b in layout.blocks for ln in b.lines]
    return dataclasses.replace(layout, figures=(*layout.figures, *with_labels(drawn, labels)))


def _page_ink(page: pymupdf.Page) -> Ink:
    """:data:`Ink` of ``page`` as rendered (the pixmap is made on the first call)."""
    made: list[pymupdf.Pixmap] = []
    dark = bytes(1 if v < 128 else 0 for v in range(256))

    def ink(box: Rect) -> list[int]:
        if not made:
            made.append(page.get_pixmap(dpi=round(72 * INK_SCALE), colorspace=pymupdf.csGRAY))
        pix = made[0]
        x0 = max(0, int((box[0] - page.rect.x0) * INK_SCALE))
        x1 = min(pix.width, int((box[2] - page.rect.x0) * INK_SCALE) + 1)
        y0 = max(0, int((box[1] - page.rect.y0) * INK_SCALE))
        y1 = min(pix.height, int((box[3] - page.rect.y0) * INK_SCALE) + 1)
        samples, stride = pix.samples, pix.stride
        return [
            samples[y * stride + x0 : y * stride + x1].translate(dark).count(1)
            for y in range(y0, y1)
        ]

    return ink


# --- OCR text -> layout (pure) --------------------------------------------------------------

Word = tuple[str, Rect]
#: Dark pixels in each pixel row of an area of the page, top to bottom (``INK_SCALE`` rows a
#: point).
Ink = Callable[[Rect], Sequence[int]]
INK_SCALE = 2.0


def ocr_layout(
    raw: Mapping[str, Any],
    index: int,
    width: float,
    height: float,
    figures: Sequence[Rect] = (),
    ink: Ink | None = None,
) -> PageLayout:
    """The layout of an OCR'd page from PyMuPDF's ``dict`` of its OCR text page.

    Lines are cut where a gap wider than their height runs through them (Tesseract joins the
    two columns of a skewed page into one line), grouped into blocks of lines one above the
    other, and each gets a font size and baseline (see the module's docstring). A line box
    much taller than its text (Tesseract joins a line with a figure's drawing beside it) is
    cut down to the band of its text's height holding the most ``ink``. ``figures`` are kept
    as given: the scan is one image, so none are found from it.
    """
    raw_lines: list[list[Word]] = []
    for block in raw.get("blocks", ()):
        if block.get("type", 0) != 0:
            continue
        for line in block.get("lines", ()):
            words = [
                (str(span["text"]).strip(), _rect(span["bbox"]))
                for span in line.get("spans", ())
                if str(span["text"]).strip() and not is_rule(str(span["text"]))
            ]
            if sum(c.isalnum() for t, _ in words for c in t) >= 2:  # not a speck
                raw_lines.append(words)
    raw_lines = drop_inner_scraps(join_fragments(raw_lines))
    gutter = find_gutter(raw_lines, width)
    pieces = [piece for words in raw_lines for piece in split_line(words, gutter)]
    boxes = [union(box for _, box in piece) for piece in pieces]
    chars = [sum(len(t) for t, _ in piece) for piece in pieces]
    sizes = even_sizes(line_sizes(boxes, chars), chars)
    tall: list[Rect] = []
    if ink is not None:
        ink = functools.lru_cache(maxsize=None)(ink)  # the two cuts look at the same areas
        spaces = [word_spaces(piece, size) for piece, size in zip(pieces, sizes, strict=True)]
        sizes = cap_by_pitch(cut_to_ink(boxes, sizes, ink, spaces), sizes, chars)
        cut = cut_to_ink(boxes, sizes, ink, spaces)
        tall = [box for box, new in zip(boxes, cut, strict=True) if new != box]
        boxes = cut
    else:
        sizes = cap_by_pitch(boxes, sizes, chars)
    lines = [_line(piece, box, size) for piece, box, size in zip(pieces, boxes, sizes, strict=True)]
    return PageLayout(
        index=index,
        width=width,
        height=height,
        blocks=tuple(group_blocks(lines)),
        figures=tuple(figures),
        tall_boxes=tuple(tall),
    )


def is_rule(text: str) -> bool:
    """Whether an OCR word is a rule of a table read as text ("|", "_", "||"): dropped, so
    that the cells on either side of it stay apart as in a text table (Table 2 of corpus 10
    page 4: "Hybrid | 91.5" made one cell, its translation set over the numbers)."""
    stripped = text.strip()
    return bool(stripped) and all(c in "|_¦" for c in stripped)


def _rect(values: Sequence[float]) -> Rect:
    return (float(values[0]), float(values[1]), float(values[2]), float(values[3]))


def _wordy(text: str) -> bool:
    return any(c.isalnum() for c in text)


def find_gutter(lines: Sequence[Sequence[Word]], width: float) -> tuple[float, float] | None:
    """The page's column gutter (x0, x1): the widest run of x in the middle 40% of the page
    that the words of at most a fifth of the lines reach into (the title, authors and footer
    run across it; a skewed scan has lines across both columns, and Tesseract reads specks in
    the gutter as dashes); None on a one-column page, and where the run is too wide for a
    gutter (a page of a few lines)."""
    if len(lines) < 8 or width <= 0:  # too few lines to tell a gutter from a margin
        return None
    lo, hi = int(0.3 * width), int(0.7 * width)
    reach = [0] * (hi - lo + 1)
    for words in lines:
        hit: set[int] = set()
        for text, box in words:
            if _wordy(text):
                hit.update(range(max(lo, int(box[0])), min(hi, int(box[2])) + 1))
        for x in hit:
            reach[x - lo] += 1
    limit = max(1, len(lines) // 5)
    best: tuple[int, int] | None = None
    start = None
    for x, count in enumerate([*reach, limit + 1]):
        if count <= limit and start is None:
            start = x
        elif count > limit and start is not None:
            if best is None or x - start > best[1] - best[0]:
                best = (start, x)
            start = None
    if best is None or not 4 <= best[1] - best[0] <= 0.12 * width:  # wider: no columns
        return None
    return (lo + best[0], lo + best[1])


def split_line(words: Sequence[Word], gutter: tuple[float, float] | None) -> list[list[Word]]:
    """One OCR line (in reading order) cut at the page's ``gutter`` when no word runs through it
    (then the specks read in the gutter go). Wide gaps elsewhere (table cells) are left to
    ``rows``, as in a text layer's lines."""
    # Tesseract's order: a line it joined with a line below reads each in turn, and a sort by
    # x would shuffle their words.
    ordered = list(words)
    through = True
    if gutter is not None:
        g0, g1 = gutter
        through = any(_wordy(t) and b[0] < g0 and b[2] > g1 for t, b in ordered)
        if not through:
            ordered = [w for w in ordered if _wordy(w[0]) or not g0 - 2 <= w[1][0] <= g1 + 2]
    if not ordered:
        return []
    pieces = [[ordered[0]]]
    for word in ordered[1:]:
        before = pieces[-1][-1][1]
        cut = (
            gutter is not None
            and not through
            and before[2] <= gutter[1]
            and word[1][0] >= gutter[0]
        )
        if cut:
            pieces.append([word])
        else:
            pieces[-1].append(word)
    return pieces


def even_sizes(sizes: Sequence[float], chars: Sequence[int]) -> list[float]:
    """Line sizes with the OCR's jitter taken out: a size from 72% to 125% of the page's body
    size (the median size of its lines of 20 characters or more) becomes the body size (a
    footnote's text too: the fitting sets it in its box), and so does the size of a line of
    fewer than 4 characters (a speck read as "(by" is no heading)."""
    long = [s for s, n in zip(sizes, chars, strict=True) if n >= 20]
    if not long:
        return list(sizes)
    body = statistics.median(long)
    return [
        body if 0.72 * body <= s <= 1.25 * body or n < 4 else s
        for s, n in zip(sizes, chars, strict=True)
    ]


def cap_by_pitch(
    boxes: Sequence[Rect], sizes: Sequence[float], chars: Sequence[int]
) -> list[float]:
    """``sizes`` with each size above the page's body size (see :func:`even_sizes`) cut down
    to the distance from its line to the nearest line above or below it (half overlapping it)
    over ``LEADING``, but not below the body size (and to it when within 125% of it). A
    line's size from its advance per character is too large where Tesseract misread it with
    fewer characters than printed ("To oil an then" for "To give an example for the"); a line
    set at body pitch among others is body text however it reads, and a heading has room
    around it."""
    long = [s for s, n in zip(sizes, chars, strict=True) if n >= 20]
    if not long:
        return list(sizes)
    body = statistics.median(long)
    out = list(sizes)
    for i, (box, size) in enumerate(zip(boxes, sizes, strict=True)):
        if size <= body:
            continue
        centre, height = (box[1] + box[3]) / 2, box[3] - box[1]
        pitches = [
            abs((other[1] + other[3]) / 2 - centre)
            for j, other in enumerate(boxes)
            if j != i
            and min(box[2], other[2]) - max(box[0], other[0])
            > 0.5 * min(box[2] - box[0], other[2] - other[0])
            and abs((other[1] + other[3]) / 2 - centre) > 0.4 * height
        ]
        if pitches:
            capped = min(size, max(body, min(pitches) / LEADING))
            out[i] = body if capped <= 1.25 * body else capped  # as even_sizes does
    return out


def line_sizes(boxes: Sequence[Rect], chars: Sequence[int]) -> list[float]:
    """The font size of each OCR line box (``chars`` characters long).

    A box grows taller than its text with the skew, and Tesseract sometimes gives a line next
    to a figure the height of two; neither the distance between lines nor the advance per
    character changes. So the page's body size is its usual line pitch / ``LEADING`` or its
    usual line height / ``INK_HEIGHT``, whichever is less (Korean is set with more leading), the
    advance of a character of that size the median over the long lines (it depends on the
    script and typeface), and a long line's size is its advance per character over that. A
    shorter line's is its height / ``INK_HEIGHT``, unless its advance says it is smaller.
    """
    heights = [(b[3] - b[1]) / INK_HEIGHT for b in boxes]
    advances = [(b[2] - b[0]) / n if n else 0.0 for b, n in zip(boxes, chars, strict=True)]
    typical = statistics.median(heights or [0.0])
    pitch = body_size(boxes)
    body = min(pitch, typical) if pitch else typical
    ratios = [a / body for a, n in zip(advances, chars, strict=True) if n >= 20 and body > 0]
    if not ratios:
        return heights
    ratio = statistics.median(ratios)
    sizes = []
    for height, advance, n in zip(heights, advances, chars, strict=True):
        by_width = advance / ratio
        if n >= 20:  # long enough for its width to tell
            sizes.append(by_width)
            continue
        if n >= 6:
            sizes.append(min(height, 1.15 * by_width))
            continue
        sizes.append(by_width if n >= 4 and height > 1.8 * by_width else height)
    return sizes


def body_size(boxes: Sequence[Rect]) -> float | None:
    """The page's usual distance between a line and the next one below it in its column,
    over ``LEADING``; None when no two lines follow each other."""
    centres = sorted(((b[1] + b[3]) / 2, b) for b in boxes)
    pitches = []
    for i, (cy, box) in enumerate(centres):
        height = box[3] - box[1]
        for cy2, other in centres[i + 1 :]:
            if cy2 - cy > 2.0 * height:
                break
            overlap = min(box[2], other[2]) - max(box[0], other[0])
            if (
                overlap > 0.5 * min(box[2] - box[0], other[2] - other[0])
                and cy2 - cy > 0.4 * height
            ):
                pitches.append(cy2 - cy)
                break
    return statistics.median(pitches) / LEADING if len(pitches) >= 3 else None


def word_spaces(words: Sequence[Word], size: float) -> list[tuple[float, float]]:
    """The x ranges between the ``words`` of a line set at ``size`` that are as narrow as a
    space (a wider one may hold a word Tesseract did not read), inset by a fifth of a point."""
    out = []
    for (_, left), (_, right) in zip(words, words[1:], strict=False):
        if 0.5 <= right[0] - left[2] <= 0.6 * size:
            out.append((left[2] + 0.2, right[0] - 0.2))
    return out


def drop_inner_scraps(lines: Sequence[Sequence[Word]]) -> list[list[Word]]:
    """``lines`` without the lines of fewer than 4 characters whose middle lies in the box of
    a line half again as high as the usual line: a scrap of a line Tesseract stretched over
    its neighbours, read again on its own ("wt" in "et al., 2013) titled", page 4), which
    would be sent alone; its ink is under the stretched line's cover."""
    boxes = [union(box for _, box in words) for words in lines]
    if not boxes:
        return []
    usual = statistics.median(b[3] - b[1] for b in boxes)
    tall = [b for b in boxes if b[3] - b[1] > 1.5 * usual]
    out = []
    for words, box in zip(lines, boxes, strict=True):
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        inner = any(t != box and t[0] <= cx <= t[2] and t[1] <= cy <= t[3] for t in tall)
        if not (inner and sum(len(t) for t, _ in words) < 4):
            out.append(list(words))
    return out


def join_fragments(lines: Sequence[Sequence[Word]]) -> list[list[Word]]:
    """OCR lines with the pieces of one printed line that Tesseract gave as lines of their
    own joined: a piece whose first word has the same box height and place as the last word
    of an earlier line, and starts less than one and a half box heights to its right, follows
    it. Sized alone, a piece of a few words reads as a heading ("To give an") or as small
    print (a line of one-word pieces), and its box, taller than the text, is cut alone."""
    out: list[list[Word]] = []
    for words in lines:
        first = words[0][1]
        for line in out:
            last = line[-1][1]
            height = last[3] - last[1]
            if (
                abs(first[1] - last[1]) <= 0.5
                and abs(first[3] - last[3]) <= 0.5
                and -1.0 <= first[0] - last[2] <= 1.5 * height
            ):
                line.extend(words)
                break
        else:
            out.append(list(words))
    return out


#: How much the ink in the spaces between a line's words counts against a band (see
#: :func:`cut_to_ink`): spaces are about a tenth of a line's length.
SPACE_WEIGHT = 4


def cut_to_ink(
    boxes: Sequence[Rect],
    sizes: Sequence[float],
    ink: Ink,
    spaces: Sequence[Sequence[tuple[float, float]]] = (),
) -> list[Rect]:
    """Each line box much taller than its text (``INK_HEIGHT`` x its size) cut down to the
    band of its text's height that holds the most ``ink``, not counting the ink inside the
    boxes of the lines beside it that are as high as their text: Tesseract stretches a line
    box over its neighbour lines, whose ink would pull the band onto them, leaving the line's
    own words uncovered. ``spaces`` are the x ranges between a line's words: blank in the
    rows of its own text, and a band of another line across them is scored down by the ink
    found there (``SPACE_WEIGHT`` times)."""
    text_heights = [INK_HEIGHT * size for size in sizes]
    tall = [b[3] - b[1] > 1.3 * h for b, h in zip(boxes, text_heights, strict=True)]
    out = []
    for i, box in enumerate(boxes):
        if not tall[i]:
            out.append(box)
            continue
        rows = list(ink(box))
        first = int(box[1] * INK_SCALE)
        for j, other in enumerate(boxes):
            if j == i or tall[j] or other[2] <= box[0] or box[2] <= other[0]:
                continue
            start, end = int(other[1] * INK_SCALE) - first, int(other[3] * INK_SCALE) - first
            for k in range(max(0, start), min(len(rows), end + 1)):
                rows[k] = 0
        for x0, x1 in spaces[i] if i < len(spaces) else ():
            for k, dark in enumerate(ink((x0, box[1], x1, box[3]))[: len(rows)]):
                rows[k] = max(0, rows[k] - SPACE_WEIGHT * dark)
        start_row = ink_band(rows, round(text_heights[i] * INK_SCALE))
        if start_row is None:
            out.append(box)
            continue
        top = box[1] + start_row / INK_SCALE
        out.append((box[0], top, box[2], top + text_heights[i]))
    return out


def ink_band(rows: Sequence[int], height: int) -> int | None:
    """The first of the ``height`` consecutive ``rows`` that hold the most ink, the middle one
    of several that hold as much (a window taller than the ink centred on it); None when
    there are not that many rows, or no ink."""
    if height <= 0 or len(rows) < height:
        return None
    window = sum(rows[:height])
    sums = [window]
    for i in range(height, len(rows)):
        window += rows[i] - rows[i - height]
        sums.append(window)
    best = max(sums)
    if best <= 0:
        return None
    first = sums.index(best)
    last = first
    while last + 1 < len(sums) and sums[last + 1] == best:
        last += 1
    return (first + last) // 2


def _line(words: Sequence[Word], box: Rect, size: float) -> Line:
    # The ink box's bottom is a descent below the baseline at the line's lower end; a slanted
    # line's baseline runs through the middle of the extra height the slant adds.
    slant = max(0.0, (box[3] - box[1]) - INK_HEIGHT * size)
    baseline = box[3] - DESCENT * size - slant / 2
    spans = []
    for n, (text, wbox) in enumerate(words):
        after = words[n + 1] if n + 1 < len(words) else None
        spaced = after is not None and word_space(text, after[0], after[1][0] - wbox[2], size)
        spans.append(
            Span(
                text=text + " " if spaced else text,
                bbox=(wbox[0], box[1], wbox[2], box[3]),
                font=OCR_FONT,
                size=size,
                origin=(wbox[0], baseline),
            )
        )
    return Line(spans=tuple(spans), bbox=box)


def _cjk(char: str) -> str:
    """ "hangul", "han" (Chinese characters and kana) or "" for another character."""
    code = ord(char)
    if 0xAC00 <= code <= 0xD7A3 or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F:
        return "hangul"
    if 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF:
        return "han"
    return ""


def word_space(left: str, right: str, gap: float, size: float) -> bool:
    """Whether two OCR words ``gap`` apart are separated by a space. Tesseract splits Korean
    and Chinese text into words of one character: Chinese and Japanese use no spaces, Korean
    only between words, where the gap is a third of an em rather than a sliver."""
    a, b = _cjk(left[-1]) if left else "", _cjk(right[0]) if right else ""
    if not a or not b:
        return True
    if a == "han" or b == "han":
        return False
    return gap >= 0.2 * size


def group_blocks(lines: Sequence[Line]) -> list[Block]:
    """Consecutive lines (top to bottom) of one column in one block: a line joins the block
    whose last line it overlaps horizontally by half and follows within one line height."""
    blocks: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: (ln.bbox[1], ln.bbox[0])):
        x0, y0, x1, y1 = line.bbox
        for group in blocks:
            last = group[-1].bbox
            overlap = min(x1, last[2]) - max(x0, last[0])
            if overlap > 0.5 * min(x1 - x0, last[2] - last[0]) and -0.5 * (y1 - y0) < y0 - last[
                3
            ] < (y1 - y0):
                group.append(line)
                break
        else:
            blocks.append([line])
    return [Block(lines=tuple(g), bbox=union(ln.bbox for ln in g)) for g in blocks]


def _text_band(line: Line) -> Rect:
    """Where a line's letters are: from its ascenders to its descenders (Tesseract's box may
    take in a drawing beside them)."""
    span = line.spans[0]
    base = span.origin[1] if span.origin else line.bbox[3]
    return (line.bbox[0], base - 0.8 * span.size, line.bbox[2], base + 0.3 * span.size)


# --- drawings in the scan (pure) ----------------------------------------------------------

#: Pixels a point of the page image the drawings are found on (18 dpi: a cell of 4 points).
GRAPHIC_SCALE = 0.25


def graphic_regions(
    dark: Sequence[bool],
    width: int,
    height: int,
    lines: Sequence[Rect],
    scale: float = GRAPHIC_SCALE,
) -> list[Rect]:
    """The figures of a scanned page: where its ink is not text. ``dark`` is the page image
    (row-major, ``width`` x ``height`` pixels, ``scale`` pixels a point); ``lines`` are the
    bands of the OCR'd lines, whose ink is text. The rest of the ink is grouped into pieces
    (pixels within 2 of each other); the pieces that are two-dimensional (not a rule of a
    table, a fraction bar or an underline), 6 points larger and joined where they overlap, are
    a figure when large enough: the labels Tesseract read in it stay as they are.
    """
    if len(dark) != width * height or not width:
        return []
    text = bytearray(width * height)
    for x0, y0, x1, y1 in lines:
        c0, c1 = max(0, int((x0 - 2) * scale)), min(width - 1, int((x1 + 2) * scale))
        r0, r1 = max(0, int((y0 - 2) * scale)), min(height - 1, int((y1 + 2) * scale))
        for r in range(r0, r1 + 1):
            text[r * width + c0 : r * width + c1 + 1] = b"\x01" * (c1 - c0 + 1)
    seen = bytearray(width * height)
    pieces: list[Rect] = []
    reach = 3
    for start in range(width * height):
        if not dark[start] or text[start] or seen[start]:
            continue
        seen[start] = 1
        stack, count = [start], 0
        c0 = c1 = start % width
        r0 = r1 = start // width
        while stack:
            at = stack.pop()
            count += 1
            r, c = divmod(at, width)
            c0, c1, r0, r1 = min(c0, c), max(c1, c), min(r0, r), max(r1, r)
            for rr in range(max(0, r - reach), min(height, r + reach + 1)):
                for cc in range(max(0, c - reach), min(width, c + reach + 1)):
                    nxt = rr * width + cc
                    if dark[nxt] and not text[nxt] and not seen[nxt]:
                        seen[nxt] = 1
                        stack.append(nxt)
        w, h = (c1 - c0 + 1) / scale, (r1 - r0 + 1) / scale
        if w >= 8 and h >= 8 and count >= 4:
            pieces.append(
                (c0 / scale - 6, r0 / scale - 6, (c1 + 1) / scale + 6, (r1 + 1) / scale + 6)
            )
    return [r for r in _merged(pieces) if (r[2] - r[0]) * (r[3] - r[1]) >= 2500]


def with_labels(figures: Sequence[Rect], lines: Sequence[tuple[Rect, int]]) -> list[Rect]:
    """``figures`` grown over the short lines (``(box, words)``, at most 3 words) that touch
    them, until none is left: the labels of a drawing, and the drawing Tesseract read as text
    ("(~ links to Com)"). A line of running text is longer and stays out."""
    out = list(figures)
    short = [box for box, words in lines if words <= 3]
    grown = True
    while grown and out:
        grown = False
        for box in short:
            for i, fig in enumerate(out):
                near = (
                    box[0] <= fig[2] + 6
                    and fig[0] - 6 <= box[2]
                    and box[1] <= fig[3] + 6
                    and fig[1] - 6 <= box[3]
                )
                inside = (
                    fig[0] <= box[0] and box[2] <= fig[2] and fig[1] <= box[1] and box[3] <= fig[3]
                )
                if near and not inside:
                    out[i] = union([fig, box])
                    grown = True
        out = _merged(out)
    return out


def _merged(boxes: Sequence[Rect]) -> list[Rect]:
    """``boxes`` with the ones that overlap joined, until none do."""
    out = list(boxes)
    joined = True
    while joined:
        joined = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                    out[i] = union([a, b])
                    del out[j]
                    joined = True
                    break
            if joined:
                break
    return out


# --- covering the scanned words (pure) ------------------------------------------------------


def tall_box_bands(bbox: Rect, size: float, tall_boxes: Sequence[Rect]) -> list[Rect]:
    """Redaction bands (as ``rows.make_row`` makes them) whose covers (:func:`cover_boxes`,
    unskewed) reach the whole of each of ``tall_boxes`` that a paragraph's ``bbox`` (of font
    ``size``) holds a line of (overlaps by 0.4 ``size`` in y), within the paragraph's x range.
    Tesseract's box of a line holds all its words, but where it stretches over neighbour lines
    the cut to its text may land on a neighbour (or on a line Tesseract missed): the whole
    box is its text to hide (the neighbours are text too)."""
    out = []
    for box in tall_boxes:
        x0, x1 = max(box[0], bbox[0]), min(box[2], bbox[2])
        top, bottom = box[1], box[3]
        if x1 - x0 < 1.0 or min(bottom, bbox[3]) - max(top, bbox[1]) < 0.4 * size:
            continue
        # cover_boxes: from y1 - 1.5 h to y1 + 0.8 h for a band of height h (no skew).
        h = (bottom - top) / 2.3
        y1 = bottom - 0.8 * h
        out.append((x0 + 0.3 * h, y1 - h, x1 - 0.3 * h, y1))
    return out


def cover_boxes(rects: Sequence[Rect], skew_deg: float = MAX_SKEW_DEG) -> list[Rect]:
    """The areas to paint over to hide the scanned words of lines whose redaction bands are
    ``rects`` (``rows.make_row``: half a font size high, its bottom a tenth of a size above the
    baseline): from the ascenders to the descenders, wide by a little, and high by the rise of
    a line of that width skewed by ``skew_deg``."""
    tilt = abs(skew_deg) * 3.14159265 / 180.0
    out = []
    for x0, y0, x1, y1 in rects:
        size = 2.0 * (y1 - y0)
        baseline = y1 + 0.1 * size
        rise = min(0.5 * size, 0.5 * (x1 - x0) * tilt)
        out.append(
            (
                x0 - 0.15 * size,
                baseline - 0.85 * size - rise,
                x1 + 0.15 * size,
                baseline + 0.3 * size + rise,
            )
        )
    return out


def background(pixels: Sequence[tuple[int, int, int]]) -> tuple[float, float, float]:
    """The background colour (0..1 RGB) among ``pixels`` sampled around a word box: the most
    common colour, after rounding away scan noise, of the lighter half of the pixels (the
    ring crosses the strokes of neighbour lines); white when there are none."""
    if not pixels:
        return (1.0, 1.0, 1.0)
    lightness = sorted(sum(p) for p in pixels)
    middle = lightness[len(lightness) // 2]
    pixels = [p for p in pixels if sum(p) >= middle]
    counts = Counter((r // 16, g // 16, b // 16) for r, g, b in pixels)
    best = counts.most_common(1)[0][0]
    chosen = [p for p in pixels if (p[0] // 16, p[1] // 16, p[2] // 16) == best]
    return tuple(statistics.fmean(p[i] for p in chosen) / 255.0 for i in range(3))  # type: ignore[return-value]


def ring(box: Rect, scale: float, width: int, height: int, margin: float = 2.0) -> list[int]:
    """Pixel indices (row-major, ``width`` x ``height`` at ``scale`` pixels per point) of
    the outline ``margin`` points outside ``box``."""
    x0 = max(0, min(width - 1, int((box[0] - margin) * scale)))
    x1 = max(0, min(width - 1, int((box[2] + margin) * scale)))
    y0 = max(0, min(height - 1, int((box[1] - margin) * scale)))
    y1 = max(0, min(height - 1, int((box[3] + margin) * scale)))
    out = [y0 * width + x for x in range(x0, x1 + 1)]
    out += [y1 * width + x for x in range(x0, x1 + 1)]
    out += [y * width + x0 for y in range(y0, y1 + 1)]
    out += [y * width + x1 for y in range(y0, y1 + 1)]
    return out


#: Resolution of the page image the background colours are sampled from.
SAMPLE_DPI = 72


def paint_covers(page: pymupdf.Page, rects: Sequence[Rect]) -> int:
    """Paint over the scanned words of the lines whose redaction bands are ``rects``, each
    cover in the background colour around it; returns how many covers were painted."""
    boxes = cover_boxes(rects)
    if not boxes:
        return 0
    pix = page.get_pixmap(dpi=SAMPLE_DPI, colorspace=pymupdf.csRGB, alpha=False)
    samples, n = pix.samples, pix.n
    scale = SAMPLE_DPI / 72.0
    origin = page.rect
    shape = page.new_shape()
    for box in boxes:
        local = (box[0] - origin.x0, box[1] - origin.y0, box[2] - origin.x0, box[3] - origin.y0)
        pixels = [
            (samples[i * n], samples[i * n + 1], samples[i * n + 2])
            for i in ring(local, scale, pix.width, pix.height)
        ]
        shape.draw_rect(pymupdf.Rect(box))
        shape.finish(color=None, fill=background(pixels), width=0)
    shape.commit(overlay=True)
    return len(boxes)


#: Told ``(page, done)`` before and after the OCR of a page (the worker's time limit).
OnPage = Callable[[int, bool], None]

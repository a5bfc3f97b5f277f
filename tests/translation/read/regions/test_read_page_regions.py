"""The region stage (issue 35 item 1): margin material is told apart from the body before
rows become paragraphs. A line-numbered manuscript, margin labels, a side note and a running
head over a sentence that goes on across pages are set as real PDF pages with PyMuPDF; the
asserts are on what a user sees: the requests sent, what the reader kept and why, and the
text on the translated page. Two real pages of ``corpus2/`` close it."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from tests.conftest import CORPUS_DIR
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.paper import BODY_WORDS
from tests.helpers.pdfgen.sheet import Placed, lines_at, words_at, wrap
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.flow.passage import passages, translated
from translation.read.segmentation import Segmentation

WIDTH, HEIGHT = 595.0, 842.0
LEFT, RIGHT = 110.0, 500.0
SIZE, LEADING = 10.0, 12.5
HANGUL_RE = re.compile("[\uac00-\ud7a3]")


def sentence(seed: int, words: int = 14) -> str:
    """A sentence of body words, different for each ``seed``, with a capital and a stop."""
    chosen = [BODY_WORDS[(seed * 7 + 3 * k) % len(BODY_WORDS)] for k in range(words)]
    return " ".join(chosen).capitalize() + "."


def body(page: pymupdf.Page, y: float, text: str) -> tuple[float, list[float]]:
    """Set ``text`` as a paragraph of the body from ``y``; where it ends and its baselines."""
    lines = wrap(text, RIGHT - LEFT)
    end = lines_at(page, LEFT, y, lines, SIZE, pitch=LEADING)
    return end + 6, [y + k * LEADING for k in range(len(lines))]


def line_number(page: pymupdf.Page, number: int, baseline: float) -> None:
    """``number`` set flush right at x 80 in the left margin (7 pt), as ``lineno`` sets it."""
    label = str(number)
    words_at(page, [(80 - pymupdf.get_text_length(label, "tiro", 7), baseline, label, 7, "tiro")])


def read(doc: pymupdf.Document) -> tuple[bytes, Segmentation]:
    data = bytes(doc.tobytes())
    return data, extract_document(open_document(data))


def requests(found: Segmentation) -> list[str]:
    return [p.text for p in passages(found.paragraphs)]


def translated_page(data: bytes, found: Segmentation, number: int) -> pymupdf.Page:
    doc = open_document(data)
    texts = translated(found.paragraphs, lambda text: pseudo_translate(text, "ko"))
    return pymupdf.open(stream=render_mono(doc, found.paragraphs, texts, "ko"))[number]


def page_words(page: pymupdf.Page) -> list[tuple[float, float, float, float, str]]:
    return [(w[0], w[1], w[2], w[3], w[4]) for w in page.get_text("words")]


# --- a line-numbered manuscript ---------------------------------------------------------------


def running_text(p: int) -> tuple[str, tuple[str, str]]:
    """Page ``p``'s text of a paper whose sentences run over every page break, and the break:
    (the words page ``p`` ends with, the words it starts with)."""
    text = " ".join(sentence(6 * p + s) for s in range(3))
    opening = " ".join(BODY_WORDS[(5 * p + k) % len(BODY_WORDS)] for k in range(8))
    if p:
        text = f"{opening} {text}"
    closing = [BODY_WORDS[(3 * p + k) % len(BODY_WORDS)] for k in range(30)]
    return f"{text} {' '.join(closing).capitalize()}", (" ".join(closing[-5:]), opening)


def assert_joined_over_breaks(breaks: list[tuple[str, str]], sent: list[str]) -> None:
    """Each page's last words and the next page's first went out in one request."""
    for (end, _), (_, start) in zip(breaks, breaks[1:], strict=False):
        assert any(f"{end} {start}" in text for text in sent), (end, start)


def test_line_numbers_are_kept_on_the_page_and_never_join_the_text() -> None:
    """ "211 Authors can use ... 212 extra information ...": every line of two pages carries
    its number in the left margin; the requests hold none of them, a heading stays its own
    request, and the numbers stand on the translated page where they were."""
    doc = pymupdf.open()
    number = 211
    paragraphs = []
    for p in range(2):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        y = 90.0
        for k in range(4):
            if k == 2:
                words_at(page, [(LEFT, y, f"{p + 2}. Results", 12, "tibo")])
                line_number(page, number, y)
                number += 1
                y += 2 * LEADING
            text = " ".join(sentence(10 * p + 3 * k + s) for s in range(4))
            paragraphs.append(text)
            y, baselines = body(page, y, text)
            for baseline in baselines:
                line_number(page, number, baseline)
                number += 1
    data, found = read(doc)
    sent = requests(found)
    for text in paragraphs:
        assert text in sent  # whole, and nothing beside it
    assert "2. Results" in sent and "3. Results" in sent
    assert not any(re.search(r"\b2\d\d\b", text) for text in sent), sent
    numbers = [k for k in found.kept if k.reason == "line number"]
    assert {k.text for k in numbers} == {str(n) for n in range(211, number)}
    out = page_words(translated_page(data, found, 0))
    assert any(w[4] == "211" and w[2] <= LEFT for w in out)
    assert any(HANGUL_RE.search(w[4]) and w[0] >= LEFT - 1 for w in out)


# --- margin labels and a side note ------------------------------------------------------------


LABELS = (("Background", "Overview", "Findings"), ("Premise", "Outlook", "Summary"))


def test_a_margin_label_is_its_own_request_set_in_the_margin() -> None:
    """A command's name set in the left margin beside the first line of its description:
    the description is one request, whole (no word cut at the label's line, no label in it),
    the label another, and its translation stands in the margin, not over the body."""
    doc = pymupdf.open()
    descriptions = []
    for p in range(2):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        y = 100.0
        for k, label in enumerate(LABELS[p]):
            text = " ".join(sentence(20 * p + 5 * k + s) for s in range(3))
            descriptions.append(text)
            words_at(page, [(40, y, label, 8, "tiit")])
            y, _ = body(page, y, text)
            y += 8
    data, found = read(doc)
    sent = requests(found)
    for text in descriptions:
        assert text in sent
    everyone = {label for page in LABELS for label in page}
    assert all(sent.count(label) == 1 for label in everyone), sent
    labels = [p for p in found.paragraphs if p.text in everyone]
    assert len(labels) == len(everyone) and all(p.bbox[2] <= LEFT for p in labels)
    out = page_words(translated_page(data, found, 0))
    margin = [w for w in out if w[0] < LEFT - 1]
    assert len(margin) >= len(LABELS[0])
    assert all(HANGUL_RE.search(w[4]) and w[2] <= LEFT for w in margin), margin


def justified(page: pymupdf.Page, x: float, y: float, text: str, width: float) -> None:
    """Set ``text`` as one justified line from ``x``: its last word ends at ``x + width``."""
    words = text.split()
    widths = [pymupdf.get_text_length(word, "tiro", SIZE) for word in words]
    space = (width - sum(widths)) / max(1, len(words) - 1)
    placed: list[Placed] = []
    for word, advance in zip(words, widths, strict=True):
        placed.append((x, y, word, SIZE, "tiro"))
        x += advance + space
    words_at(page, placed)


def test_a_version_note_in_the_outer_margin_is_never_read_into_the_line_beside_it() -> None:
    """Origin: 146 p3, p11 (a package manual marks where a feature came in with its version,
    "v0.5", in the right margin beside a justified line of the text): the note, one letter
    and digits, was read into the sentence beside it ("... escape하여야 할 v0.5 때가 있다").
    At a line's end, past the body's right edge, a letter with digits is margin material:
    the sentence is one request without it, and the note stands on the translated page."""
    doc = pymupdf.open()
    paragraphs = []
    for p in range(2):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        y = 100.0
        for k in range(3):
            text = " ".join(sentence(40 * p + 4 * k + s) for s in range(4))
            paragraphs.append(text)
            lines = wrap(text, RIGHT - LEFT)
            for n, line in enumerate(lines):
                if n < len(lines) - 1:
                    justified(page, LEFT, y, line, RIGHT - LEFT)
                else:
                    words_at(page, [(LEFT, y, line, SIZE, "tiro")])
                if k == 1 and n == 1:  # the note right after its line, as TeX sets it
                    words_at(page, [(RIGHT + 11, y, f"v{p}.5", 8, "tiro")])
                y += LEADING
            y += 6
    data, found = read(doc)
    sent = requests(found)
    for text in paragraphs:
        assert text in sent, sent
    assert not any(re.search(r"v\d\.5", text) for text in sent), sent
    out = page_words(translated_page(data, found, 0))
    assert any(w[4] == "v0.5" and w[0] >= RIGHT for w in out), out


def test_a_side_note_is_one_request_beside_the_paragraph_it_annotates() -> None:
    """A note of three lines set in the margin beside a paragraph: the note is one request of
    its own, the paragraph another, whole; translated, neither is set over the other."""
    doc = pymupdf.open()
    paragraphs = []
    note = ["Check these", "numbers again", "before sending."]
    for p in range(2):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        y = 100.0
        for k in range(3):
            text = " ".join(sentence(30 * p + 4 * k + s) for s in range(4))
            paragraphs.append(text)
            start = y
            y, _ = body(page, y, text)
            if p == 0 and k == 1:
                lines_at(page, 30, start, note, 8, pitch=LEADING)
    data, found = read(doc)
    sent = requests(found)
    assert " ".join(note) in sent
    for text in paragraphs:
        assert text in sent
    out = page_words(translated_page(data, found, 0))
    notes = [w for w in out if w[0] < LEFT - 1]
    assert notes and all(HANGUL_RE.search(w[4]) and w[2] <= LEFT for w in notes), notes


# --- a running head over a sentence that goes on across pages -------------------------------


EVEN_HEAD = "Notes on Synthetic Reading Order"
ODD_HEAD = "Careful Layouts for Testing"


def test_a_running_head_is_never_read_into_the_sentence_it_interrupts() -> None:
    """Odd and even pages carry their own running head and page number, below the top edge;
    each page ends inside a sentence that the next page finishes. The sentence is one request
    over the page break with no head in it; the heads are kept, as running heads, and stand
    on the translated page."""
    doc = pymupdf.open()
    breaks = []  # (the words a page ends with, the words the next page starts with)
    for p in range(6):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        head = EVEN_HEAD if p % 2 else ODD_HEAD
        words_at(page, [(LEFT, 84, str(p + 1), SIZE, "tiro"), (200, 84, head, SIZE, "tiit")])
        y = 120.0
        text, at_break = running_text(p)
        breaks.append(at_break)
        lines_at(page, LEFT, y, wrap(text, RIGHT - LEFT), SIZE, pitch=LEADING)
    data, found = read(doc)
    sent = requests(found)
    assert not any(EVEN_HEAD in text or ODD_HEAD in text for text in sent), sent
    heads = [k for k in found.kept if k.reason == "running head"]
    assert {re.sub(r"^\d+ ", "", k.text) for k in heads} == {EVEN_HEAD, ODD_HEAD}
    assert {k.page for k in heads} == set(range(6))
    assert_joined_over_breaks(breaks, sent)
    out = translated_page(data, found, 1).get_text()
    assert EVEN_HEAD in out


def test_a_page_number_far_from_its_running_head_is_kept_with_it() -> None:
    """Origin: corpus2 124 p10 (a JSS vignette: "10" at the left edge, "Residual-Based
    Shadings in vcd" centred, read as one row over the gap): the row's middle fell left of the
    head's box, so it lay on no furniture, was taken for the page's top line finishing the
    sentence the page before broke off, and was read into it ("... disapprove 10
    Residual-Based Shadings in vcd punishment ..."). A page number and its head on one line
    are one piece of furniture: the sentence goes on over the break with no head in it."""
    doc = pymupdf.open()
    breaks = []
    for p in range(6):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        head = "Careful Layouts" if p % 2 else "Notes on Reading"
        words_at(page, [(81, 84, str(p + 1), 10.9, "tiro"), (236, 84, head, 10.9, "tiro")])
        text, at_break = running_text(p)
        breaks.append(at_break)
        lines_at(page, LEFT, 120.0, wrap(text, RIGHT - LEFT), SIZE, pitch=LEADING)
    _, found = read(doc)
    sent = requests(found)
    assert not any("Careful Layouts" in t or "Notes on Reading" in t for t in sent), sent
    assert_joined_over_breaks(breaks, sent)
    heads = {k.page for k in found.kept if k.reason == "running head"}
    assert heads == set(range(6))


def test_a_running_heads_second_line_below_the_band_is_kept_with_it() -> None:
    """Origin: 114 p2-p9 (Emerald's outer margin: "Shift work" | "interventions" over the
    page number, set larger than the body, its second line below the band where heads are
    looked for): the second line was read as a heading in the middle of the sentence that
    runs over the page break ("work and family demands can" | "interventions" | "influence
    each other"). It is the head's next line: kept as a running head, and the sentence is
    one request."""
    doc = pymupdf.open()
    breaks = []
    for p in range(6):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        words_at(page, [(520, 110, "Careful", 13, "tiro")])
        words_at(page, [(520, 126, "layouts", 13, "tiro")])
        words_at(page, [(540, 150, str(p + 1), 13, "tibo")])
        y = 110.0
        text, at_break = running_text(p)
        breaks.append(at_break)
        for line in wrap(text, width=360.0):
            words_at(page, [(90, y, line, SIZE, "tiro")])
            y += LEADING
    _, found = read(doc)
    sent = requests(found)
    assert not any("layouts" in text.split() for text in sent), sent
    heads = {(k.page, k.text) for k in found.kept if k.reason == "running header/footer"}
    assert {(p, "layouts") for p in range(6)} <= heads, heads
    assert_joined_over_breaks(breaks, sent)


def test_a_running_foot_that_opens_with_its_page_number_is_no_footnote() -> None:
    """Origin: 148 p5-p12 (IBM's foot: "12 Row and Column Access Control Support in IBM DB2
    for i" on even pages, the page number first): the number read as a footnote's mark gave
    the foot back to the text as a footnote, sent on every page. A row told as a running foot
    by its recurrence stays kept, and the footnote on the same page is still sent."""
    foot = "Access Control Support in Careful Systems"
    doc = pymupdf.open()
    for p in range(8):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        y = 120.0
        for s in range(3):
            y, _ = body(page, y, " ".join(sentence(4 * p + s + k) for k in range(3)))
        if p == 2:
            note = "3 " + sentence(50, words=10)
            words_at(page, [(LEFT, 740, note, 8, "tiro")])
        if p % 2:  # the number bold, a size larger, a gap before the title
            words_at(page, [(LEFT, 800, str(p + 1), 10, "hebo")])
            words_at(page, [(LEFT + 23, 800, foot, 9, "helv")])
        else:
            words_at(page, [(RIGHT - 120, 800, "Chapter 1. Roles", 9, "helv")])
            words_at(page, [(RIGHT - 10, 800, str(p + 1), 10, "hebo")])
    _, found = read(doc)
    sent = requests(found)
    assert not [t for t in sent if foot in t or "Chapter 1. Roles" in t], sent
    assert sum(sentence(50, words=10) in t for t in sent) == 1, sent
    heads = [k for k in found.kept if foot in k.text]
    assert {k.page for k in heads} == {1, 3, 5, 7}, heads


def test_a_recurring_head_alone_at_the_top_is_never_read_into_the_sentence() -> None:
    """Origin: 128 p2-p12 (JSS: "2 Regression Models for Count Data in R" alone at the top of
    even pages, at the body's size): each page ends inside a sentence, and the page's top row,
    told apart as an isolated head, was given back as the sentence's next line ("... in the
    MASS package 2 Regression Models for Count Data in R"); the pages are sampled from a longer
    paper, so their numbers do not count with the pages and the layout's furniture missed the
    head. A head told by its recurrence is kept; the sentence runs on without it."""
    doc = pymupdf.open()
    breaks = []
    for p in range(6):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        # Pages sampled from a longer paper: their numbers do not count with the pages.
        number = str(3 * p + 2)
        if p % 2:
            words_at(page, [(LEFT, 76, number, SIZE, "tiro")])
            words_at(page, [(LEFT + 18, 76, ODD_HEAD, SIZE, "tiro")])
        else:
            words_at(page, [(LEFT + 60, 76, EVEN_HEAD, SIZE, "tiro")])
            words_at(page, [(RIGHT - 10, 76, number, SIZE, "tiro")])
        text, at_break = running_text(p)
        breaks.append(at_break)
        body(page, 112.0, text)
    _, found = read(doc)
    sent = requests(found)
    assert not any(EVEN_HEAD in text or ODD_HEAD in text for text in sent), sent
    assert_joined_over_breaks(breaks, sent)


def test_a_columns_first_line_in_the_head_band_is_read_with_its_paragraph() -> None:
    """Origin: 134 p2-p12 (a TeX user guide: each column opens with a hanging term, "usecmfonts
    By use of this option, you declare that you do", 57 pt down, inside the band where heads
    are looked for, its rest indented under it): the first line was kept as a header and the
    paragraph sent without it ("not have the ..."). A body-size line with the body's next
    line a line step under it is the column's first line: sent with its paragraph, as one
    request; the running head above it, set apart, is still kept."""
    doc = pymupdf.open()
    openings = []
    for p in range(6):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        words_at(
            page, [(LEFT, 40, ODD_HEAD, SIZE, "tiit"), (RIGHT - 10, 40, str(p + 1), SIZE, "tiro")]
        )
        term = ["alpha", "beta", "gamma", "delta", "kappa", "sigma"][p]
        text = " ".join(sentence(5 * p + s) for s in range(3))
        lines = wrap(text, RIGHT - LEFT - 25)
        words_at(page, [(LEFT - 25, 62, f"{term.capitalize()} {lines[0]}", SIZE, "tiro")])
        lines_at(page, LEFT, 62 + LEADING, lines[1:], SIZE, pitch=LEADING)
        openings.append(f"{term.capitalize()} {lines[0]} {lines[1].split()[0]}")
    data, found = read(doc)
    sent = requests(found)
    for opening in openings:
        assert any(opening in text for text in sent), (opening, sent)
    assert not any(ODD_HEAD in text for text in sent), sent
    assert {k.page for k in found.kept if k.text.endswith(ODD_HEAD)} == set(range(6))
    out = translated_page(data, found, 2).get_text()
    assert "Gamma" not in out and ODD_HEAD in out


# --- real pages of corpus2 ----------------------------------------------------------------------


CORPUS2 = CORPUS_DIR.parent / "corpus2"


def corpus2(prefix: str) -> Path:
    found = sorted(CORPUS2.glob(f"{prefix}_*.pdf")) if CORPUS2.is_dir() else []
    if not found:
        pytest.skip(f"corpus2 paper {prefix} not found at {CORPUS2}")
    return found[0]


@pytest.mark.corpus
def test_a_line_numbered_manuscript_of_corpus2_sends_no_line_number() -> None:
    """corpus2 130 (``lineno`` in the left margin): no request carries a run of line numbers,
    and the numbers are listed as kept, with their reason."""
    found = extract_document(open_document(corpus2("130").read_bytes()), pages=[1, 2])
    for text in requests(found):
        words = re.sub(r"\{v\d+\}", " ", text)  # placeholders are no numbers
        numbers = [int(n) for n in re.findall(r"(?<![\d.])\d{1,3}(?![\d.])", words)]
        assert not any(b == a + 1 for a, b in zip(numbers, numbers[1:], strict=False)), text
    kept = {k.text for k in found.kept if k.reason == "line number"}
    assert {"38", "39", "40"} <= kept


@pytest.mark.corpus
def test_a_todo_note_of_corpus2_is_its_own_request() -> None:
    """corpus2 133 (``todonotes``): the note set in the margin beside "An example that uses
    all of the color options is given below." is one request of its own, and that sentence
    another, with no word of the note in it."""
    found = extract_document(open_document(corpus2("133").read_bytes()), pages=[5])
    sent = requests(found)
    assert "An example that uses all of the color options is given below." in sent
    assert any(text.startswith("Anything but default colors") for text in sent), sent


# --- coverage the reader accounts for ---------------------------------------------------------


def test_every_line_is_sent_or_kept_with_its_reason(tmp_path: Path) -> None:
    """On pages with a running head, page numbers, line numbers and a code listing, every
    line of the page is in a request or in the reader's list of what it kept, with a reason;
    ``bench.corpus --write`` prints that list."""
    from bench.corpus import _write

    doc = pymupdf.open()
    listing = ["for x in items:", "    total = total + x", "print(total)"]
    number = 1
    for p in range(3):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        words_at(page, [(LEFT, 60, EVEN_HEAD, 9, "tiit"), (290, 800, str(p + 1), 9, "tiro")])
        y, baselines = body(page, 100.0, " ".join(sentence(9 * p + s) for s in range(5)))
        lines_at(page, LEFT + 20, y, listing, 9, "cour", pitch=11)
        for baseline in baselines:
            line_number(page, number, baseline)
            number += 1
    data, found = read(doc)
    sent = " ".join(p.text for p in found.paragraphs)
    reasons = {k.reason for k in found.kept}
    kept = " ".join(k.text for k in found.kept)
    for page in pymupdf.open(stream=data):
        for block in page.get_text("dict")["blocks"]:
            for line in block.get("lines", []):
                text = "".join(s["text"] for s in line["spans"]).strip()
                assert text in sent or text in kept, text
    assert {"line number", "running head", "page number"} <= reasons
    assert all(k.reason for k in found.kept)
    _write(tmp_path, "paper", [], [], [], None, None, found.kept)
    listed = (tmp_path / "paper-requests.txt").read_text(encoding="utf-8")
    assert "line number" in listed and EVEN_HEAD in listed


@pytest.mark.corpus
def test_a_two_digit_page_number_keeps_a_corpus2_running_head_out_of_the_text() -> None:
    """corpus2 124 p9-p10: the sentence broken off at p9's foot ("... that disapprove") goes
    on at p10 with no running head in it; p10's head is kept."""
    found = extract_document(open_document(corpus2("124").read_bytes()), pages=[8, 9])
    sent = [t for t in requests(found) if "disapprove" in t]
    assert sent and all("Residual-Based Shadings" not in t for t in sent), sent
    assert any(k.page == 9 and k.reason == "running head" for k in found.kept)

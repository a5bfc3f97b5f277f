"""Reading rules found on papers outside the corpus (issue 22): constructed pages that copy the
layout that broke a request, read for real."""

from __future__ import annotations

import pymupdf

from tests.helpers.pdfgen.columns import INTRO, LEFT, OUTRO, RIGHT, TEXT, TOP, WIDE
from tests.helpers.pdfgen.layouts import cell_row, lines_block
from tests.helpers.pdfgen.layouts import page as layout_page
from tests.helpers.pdfgen.sheet import LEADING, SIZE, TIMES, Sheet, put_runs, read, read_doc, wrap
from translation.read.flow.passage import passages
from translation.read.layout import Line
from translation.read.segment import segment
from translation.read.style.style_marks import without_tags

CAPTION = [
    "Table 1: Test scores of all model variants on all tasks and data sets. Bold marks the best",
    "result of each row (several results are bold where they differ within the confidence",
    "interval). We report macro scores for the span tasks and micro scores for the relation",
    "task, with the settings tuned on the development data of each task. All results",
    "are the average of five runs.",
]


def test_a_wide_captions_short_last_line_stays_with_it() -> None:
    """A full-width caption over a two-column page whose last line is short (it sits over the
    left column only) is one request, not a caption cut in the middle of its last sentence."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = TOP
    for line in CAPTION:
        sheet.writer.append((WIDE[0], y), line, TEXT, SIZE)
        y += LEADING
    assert TEXT.text_length(CAPTION[-1], SIZE) < 0.25 * (WIDE[1] - WIDE[0])
    top = y + 2 * LEADING
    for column in (LEFT, RIGHT):
        below = sheet.paragraph(INTRO, column, top)
        sheet.paragraph(OUTRO, column, below + 4)
    sheet.write()
    found = read(doc.tobytes())
    texts = [" ".join(p.text.split()) for p in found]
    captions = [t for t in texts if "All results" in t or "average of five" in t]
    assert captions == [" ".join(CAPTION)], captions
    assert sum("Automatic evaluation" in t for t in texts) == 2


def _two_more_rows(page: pymupdf.Page, xs: tuple[float, float, float], y: float) -> None:
    """Two one-line rows of papermage's Table 1 (use | what | how) from ``y``."""
    x_use, x_what, x_how = xs
    for name, gist, example in (
        ("Layout", "Segments doc into visual", "The layout predictor wraps vision models."),
        ("Logical", "Segments doc into units", "The token predictor wraps token classifiers."),
    ):
        put_runs(page, x_use, y, [(name, False)], 9)
        put_runs(page, x_what, y, [(gist, False)], 9)
        put_runs(page, x_how, y, [(example, False)], 9)
        y += 18


def test_a_word_cut_in_a_table_cell_whose_rows_are_blocks_of_their_own_is_joined() -> None:
    """MuPDF sets each row of this table as a block of its own (the cells of a row share a
    baseline), so the lines of one cell lie in several blocks: the word cut at a cell line's
    end is still joined with its rest ("down-" + "stream"), and the cell's last lines are read
    as one request, not line by line."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    x_use, x_what, x_how = 77.0, 128.0, 234.0
    put_runs(page, x_use, 85, [("Use case", True)], 9)
    put_runs(page, x_what, 85, [("Description", True)], 9)
    put_runs(page, x_how, 85, [("Examples", True)], 9)
    use = ["Linguistic/", "Semantic"]
    what = ["Segments doc into text", "units often used for down-", "stream models."]
    how = [
        "SentencePredictor wraps the sentence splitter of the library and",
        "PySBD (Sadvilkar and Neumann, 2020) to segment sentences. The next one is",
        "a custom model of the toolkit to identify broken words split across PDF lines or",
        "columns, and the last is a set of rules on top of both layout models.",
    ]
    y = 102.0
    for k, line in enumerate(how):
        put_runs(page, x_how, y + k * 10, [(line, False)], 9)
        if k < len(use):
            put_runs(page, x_use, y + k * 10, [(use[k], False)], 9)
        if k < len(what):
            put_runs(page, x_what, y + k * 10, [(what[k], False)], 9)
    y += 10 * len(how) + 8
    _two_more_rows(page, (x_use, x_what, x_how), y)
    texts = [" ".join(without_tags(p.text).split()) for p in read_doc(doc)]
    assert not [t for t in texts if t.endswith("down-") or t.startswith("stream")], texts
    assert any(t.endswith("units often used for downstream models.") for t in texts), texts
    # From the sentence's start on, the cell's lines are one request (the first line ends
    # in "and", but the next starts a name, which could as well open a new cell's line).
    assert " ".join(how[1:]) in texts, texts


def test_a_footnotes_short_last_line_left_of_its_indented_first_line_goes_with_it() -> None:
    """A footnote whose first line is indented (its mark hangs before the text) ends with a
    word cut at the line's end and a short last line at the column's edge ("dimen-" |
    "sions"): that short line lies mostly left of the first one, yet it is the same footnote,
    one request with the word whole."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    below = sheet.paragraph(INTRO, RIGHT, TOP)
    sheet.paragraph(OUTRO, RIGHT, below + 4)
    small, y = 9.0, 760.0
    line = "Used to determine the PDF page number and the page dimen-"
    sheet.writer.append((RIGHT[0] + 12, y - 3), "20", TEXT, 6.0)
    sheet.writer.append((RIGHT[0] + 18, y), line, TEXT, small)
    sheet.writer.append((RIGHT[0], y + 10), "sions", TEXT, small)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    notes = [t for t in texts if "page number" in t or "sions" in t]
    assert len(notes) == 1 and notes[0].endswith("the page dimensions"), texts


def test_citation_years_beside_stretched_spaces_stay_in_the_sentence() -> None:
    """A justified line of running text that the PDF sets in pieces, its spaces stretched
    beside citations' years ("1983;   Kozlowski, McCoy, and Vijay-Shanker   2003;"): the
    years are no table cells, the sentence is one request with its years."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    before = (
        "Paraphrase generation - Traditionally rule-based systems were used for paraphrase"
        " generation in many of the early studies of the field (McKeown"
    )
    after = (
        "Hassan et al. 2007). Quirk, Brockett, and Dolan (2004) used statistical machine"
        " translation methods for paraphrasing, and later work used neural models."
    )
    y = TOP
    for line in wrap(before, LEFT[1] - LEFT[0]):
        sheet.writer.append((LEFT[0], y), line, TEXT, SIZE)
        y += LEADING
    pieces = ["1983;", "Kozlowski, McCoy, and Vijay-Shanker", "2003;"]
    widths = [TEXT.text_length(p, SIZE) for p in pieces]
    gap = (LEFT[1] - LEFT[0] - sum(widths)) / 2
    assert gap > SIZE  # stretched past a word space
    x = LEFT[0]
    for piece, width in zip(pieces, widths, strict=True):
        sheet.writer.append((x, y), piece, TEXT, SIZE)
        x += width + gap
    y += LEADING
    for line in wrap(after, LEFT[1] - LEFT[0]):
        sheet.writer.append((LEFT[0], y), line, TEXT, SIZE)
        y += LEADING
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    whole = " ".join([before, *pieces, after])
    assert whole in texts, texts


def test_a_justified_paragraph_with_stretched_spaces_around_formulas_is_no_table() -> None:
    """A justified paragraph whose lines are set a word at a time, or with the spaces around an
    inline formula's "=" stretched, below a display of three pieces: the gaps line up like a
    table's columns, yet it is running text, one request with every word whole ("denot-" |
    "ing"), not cells sent one by one."""
    data, size = pymupdf.mupdf.fz_lookup_noto_math_font()
    math = pymupdf.Font(fontbuffer=pymupdf.mupdf.raw_to_python_bytes(data, size))
    x0, x1 = 60.0, 300.0
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = sheet.paragraph(INTRO, (x0, x1), TOP) + 2

    def put(x: float, text: str, font: pymupdf.Font = TEXT) -> float:
        sheet.writer.append((x, y), text, font, SIZE)
        return x + float(font.text_length(text, SIZE))

    def spread(line: str) -> None:  # edge to edge, the spaces stretched alike
        widths = [TEXT.text_length(w, SIZE) for w in line.split()]
        gap = (x1 - x0 - sum(widths)) / (len(widths) - 1)
        assert gap > SIZE  # wider than a word space
        x = x0
        for word in line.split():
            x = put(x, word) + gap

    def formula(text: str, name: str, tail: str) -> None:  # "... as p  =  (p, q, r, s)"
        assert put(put(x0, text), name, math) < 204 - 0.5 * SIZE
        put(204, "=")
        put(x1 - math.text_length(tail, SIZE), tail, math)

    for x, piece in ((x0, "“Input:"), (110, "Paraphrase:"), (226, "”.")):
        put(x, piece)
    y += LEADING
    put(x0 + 10, "We can further generalize the input prompt format")
    y += LEADING
    put(x0, "by formalizing a generic sequence of tokens denot-")
    y += LEADING
    formula("ing the prompt prefix of it as ", "𝑝", "(𝑝, 𝑞, 𝑟, 𝑠, 𝑡, 𝑢, 𝑣, 𝑤)")
    y += LEADING
    spread("and a generic sequence of tokens denoting")
    y += LEADING
    formula("the prompt infix of the model as ", "𝑞", "(𝑞, 𝑟, 𝑠, 𝑡, 𝑢, 𝑣, 𝑤, 𝑥)")
    y += LEADING
    spread("Overall the general input prompt will be:")
    sheet.paragraph(OUTRO, RIGHT, TOP)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    start = "We can further generalize the input prompt format by formalizing a generic sequence"
    found = [t for t in texts if t.startswith(start)]
    assert len(found) == 1, texts
    assert "of tokens denoting the prompt prefix of it as" in found[0], found
    assert "and a generic sequence of tokens denoting the prompt infix of the model as" in found[0]
    assert found[0].endswith("Overall the general input prompt will be:"), found
    assert not [t for t in texts if t.startswith(("ing ", "and a", "Overall", "="))], texts


def test_table_rows_go_on_below_a_row_whose_wide_cell_makes_most_of_it() -> None:
    """A table of three columns whose Examples cell runs wide, laid out as the PDF has it (a
    block per column of a row, the next row's first cell in the Examples block): on the row
    that ends a description cell ("stream models."), that cell makes most of the row's width,
    yet the row is one of the table's (its gap is the table's column gap), and the rows below
    it are still table rows: each cell of two lines is one request ("Layout Structure",
    "Segments doc into visual block regions."), not lines of two columns read across."""
    use, what, how = 50.0, 110.0, 240.0
    example = "The predictor wraps a library of models and a set of rules to split up the text"
    last = "and it is the last line here."

    # A justified line that the PDF sets a word at a time.
    spread, x = [], how
    for word in example.split():
        spread.append((word, x))
        x += 4.5 * len(word) + 4.6

    def cell(x: float, base: float, *lines: str) -> list[Line]:
        return [ln for k, text in enumerate(lines) for ln in cell_row([(text, x)], base + 10 * k)]

    page = layout_page(
        0,
        lines_block(cell_row([("Use case", use), ("Description", what), ("Examples", how)], 84)),
        lines_block(cell(use, 101, "Linguistic/", "Semantic")),
        lines_block(
            cell(
                what, 101, "Segments doc into text", "units often used for down-", "stream models."
            )
        ),
        lines_block(
            cell_row(spread, 101)
            + cell(how, 111, example, example, last)
            + cell(use, 152, "Layout", "Set")
        ),
        lines_block(cell(what, 152, "Segments doc into visual", "block regions.")),
        lines_block(cell(how, 152, example, example, last) + cell(use, 184, "Logical", "Set")),
        lines_block(cell(what, 184, "Segments doc into units", "like titles and captions.")),
        lines_block(cell(how, 184, example, last)),
    )
    stream = page.blocks[2].lines[2].bbox
    assert stream[2] - stream[0] < 0.3 * (page.blocks[3].lines[2].bbox[2] - stream[0])
    texts = [" ".join(p.text.split()) for p in segment([page])]
    for found in ("Layout Set", "Segments doc into visual block regions.", "Logical Set"):
        assert found in texts, texts
    assert "Segments doc into units like titles and captions." in texts, texts


def test_a_line_end_hyphen_is_decided_by_the_words_the_document_prints_whole() -> None:
    """A name cut at a line's end ("Kryscin-" + "ski": "ski" is a word) is joined because the
    references print it whole; a compound the word list would join ("multi-" + "task") and one
    it would keep ("Transformer-" + "based") keep their hyphens because the document prints
    them hyphenated inside a line."""
    doc = pymupdf.open()
    first = [
        "Faithfulness of summaries was studied at length by Kryscin-",
        "ski and others, who trained a Transformer-",
        "based checker with multi-",
        "task objectives on a large set of weakly labelled pairs.",
    ]
    second = [
        "We also train the Transformer-based checker with multi-task objectives of our own.",
        "",
        "Wojciech Kryscinski, Bryan McCann, Caiming Xiong, and Richard Socher. 2020.",
        "Evaluating the factual consistency of abstractive text summarization.",
    ]
    for lines in (first, second):
        page = doc.new_page(width=595, height=842)
        for i, text in enumerate(lines):
            if text:
                page.insert_text((72, 120 + i * 12.0), text, fontsize=10.0, fontname="tiro")
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    (cut,) = [t for t in texts if t.startswith("Faithfulness")]
    assert "by Kryscinski and others" in cut, cut
    assert "a Transformer-based checker with multi-task objectives" in cut, cut


def test_a_wrapped_cell_whose_lines_all_have_cells_beside_them_is_one_request() -> None:
    """papermage p4: every line of a wrapped Description cell has a Use-case or an Examples
    line beside it (the PDF sets each visual row as a block, a line per cell) and none ends in
    a hyphen; the rows are set further apart than the lines of a cell. Each cell is one
    request, not a request a line; the names of a data table set at one pitch stay apart."""
    use, what, how = 50.0, 110.0, 240.0
    rows = [
        (
            ["Linguistic/", "Semantic"],
            ["Segments doc into text", "units often used for", "downstream models."],
            [
                "The predictor wraps a library of models",
                "and a set of rules that split all of it",
                "into sentences.",
            ],
        ),
        (
            ["Layout", "Structure"],
            ["Segments doc into visual", "block regions."],
            [
                "The predictor wraps models from a toolkit",
                "which provides vision models trained on",
                "scientific layouts.",
            ],
        ),
    ]
    blocks = [
        lines_block(cell_row([("Use case", use), ("Description", what), ("Examples", how)], 84))
    ]
    base = 101.0
    for cells in rows:
        for k in range(max(len(lines) for lines in cells)):
            xs = zip((use, what, how), cells, strict=True)
            row = cell_row([(ls[k], x) for x, ls in xs if k < len(ls)], base)
            blocks.append(lines_block(row))
            base += 10
        base += 21
    texts = [" ".join(p.text.split()) for p in segment([layout_page(0, *blocks)])]
    for _, description, examples in rows:
        assert " ".join(description) in texts, texts
        assert " ".join(examples) in texts, texts
    names = ["precision of spans", "recall of spans", "mean over tasks"]
    data = [cell_row([("Metric", use), ("Base", 200.0), ("Ours", 250.0)], 84)]
    data += [
        cell_row([(n, use), ("81.0", 200.0), ("82.4", 250.0)], 96 + 12 * k)
        for k, n in enumerate(names)
    ]
    layout = layout_page(0, *map(lines_block, data))
    texts = [" ".join(p.text.split()) for p in segment([layout])]
    assert all(name in texts for name in names), texts


def test_a_name_cut_by_the_page_is_joined_where_the_references_print_it_whole() -> None:
    """A passage cut by the page at "Kryscin-" + "ski" (the word list would keep the hyphen:
    "ski" is a word) is one request with the name whole, since the references print it so."""
    doc = pymupdf.open()
    first = Sheet(doc)
    y = TOP
    while y < 700:  # a full page of text before the cut paragraph
        y = first.paragraph(INTRO, WIDE, y)
    first.paragraph("Our checks of factual consistency follow the protocol of Kryscin-", WIDE, y)
    first.write()
    second = Sheet(doc)
    y = second.paragraph(
        "ski and others, who label each summary sentence against its source.",
        WIDE,
        TOP,
        indent=False,
    )
    y = second.paragraph(OUTRO, WIDE, y)
    second.paragraph(
        "Wojciech Kryscinski, Bryan McCann, Caiming Xiong, and Richard Socher. 2020.",
        WIDE,
        y + LEADING,
        indent=False,
    )
    second.write()
    texts = [passage.text for passage in passages(read(doc.tobytes()))]
    (cut,) = [t for t in texts if "factual consistency" in t]
    assert "the protocol of Kryscinski and others, who label" in cut, cut


def test_a_paragraph_opening_with_a_table_label_that_goes_on_a_sentence_is_body_text() -> None:
    """2020.acl-main.447 p4: the left column ends "... bibliography linking in"; the right
    column opens with a figure and its caption, then "Table 4. On average, ..." at the body
    text's size. That paragraph goes on the sentence (one request), it is no caption."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    y = TOP
    while y < 640:
        y = sheet.paragraph(INTRO, LEFT, y)
    sheet.paragraph(
        "We provide statistics for the full text parses and the bibliography linking in", LEFT, y
    )
    sheet.figure(RIGHT, TOP - 10, TOP + 70)
    caption = "Figure 2: Distribution of papers by field of study."
    sheet.writer.append((RIGHT[0], TOP + 84), caption, TEXT, 9.0)
    run_on = (
        "Table 4. On average, the parses of the sources contain many more paragraphs of body"
        " text, because the source files keep line breaks rather than paragraph breaks. We"
        " think that the other differences are due to a number of reasons."
    )
    y = sheet.paragraph(run_on, RIGHT, TOP + 106, indent=False)
    sheet.paragraph(OUTRO, RIGHT, y)
    sheet.write()
    found = passages(read(doc.tobytes()))
    texts = [" ".join(p.text.split()) for p in found]
    assert any("bibliography linking in Table 4. On average, the parses" in t for t in texts), texts
    assert caption in texts
    (piece,) = [p for f in found for p in f.pieces if p.text.startswith("Table 4.")]
    assert piece.kind == "body"


def _wrapped(text: str, width: float, size: float) -> list[str]:
    """``text`` cut into lines at most ``width`` wide in Times at ``size``."""
    lines: list[str] = []
    for word in text.split():
        if lines and TIMES.text_length(f"{lines[-1]} {word}", size) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def test_a_short_question_cell_close_to_its_long_answer_cell_is_its_own_cell() -> None:
    """A table of four text columns whose answer cells run over more lines than the question
    cells (most visual rows start at the answer column): "What did the paper do?" ends a few
    points left of its answer cell, yet the gutter between them is found and the question is
    a request of its own, not sent with the answer's first line, and the answer's room starts
    right of the question's glyphs."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    xs, size = (84.0, 131.0, 226.0, 364.0), 9.0
    for x, head in zip(xs, ("Source", "Question", "Extracted Answer", "Plain Answer"), strict=True):
        put_runs(page, x, 106, [(head, True)], size)
    answer = (
        "The next paragraphs go over the current evidence on the drugs of this class, what"
        " was found in the trials and which of them are now studied in larger groups..."
    )
    plain = "This part tells us about some drugs that are being tested to see if they help..."
    questions = [
        "What condition does this paper study?",
        "How is the condition usually treated?",
        "What did the paper want to find out?",
        "What did the paper do?",
        "What were the new treatments, if any this paper looked into?",
        "What did the paper find?",
        "What are the limitations of the findings?",
    ]
    y = 124.0
    for k, question in enumerate(questions):
        cells = [
            ["PICO" if k % 2 else "Review"],
            _wrapped(question, 86, size),
            _wrapped(answer, 128, size),
            _wrapped(plain, 127, size),
        ]
        for x, lines in zip(xs, cells, strict=True):
            for i, line in enumerate(lines):
                put_runs(page, x, y + 11 * i, [(line, False)], size)
        y += 11 * max(len(c) for c in cells) + 11
    do = xs[1] + TIMES.text_length("What did the paper do?", size)
    assert xs[2] - do < 1.5 * size  # closer than a wide gap
    found = read_doc(doc)
    texts = [" ".join(without_tags(p.text).split()) for p in found]
    assert "What did the paper do?" in texts, texts
    assert not [t for t in texts if "do? The next" in t], texts
    assert texts.count(" ".join(_wrapped(answer, 128, size))) == len(questions), texts
    # An answer's translation may grow left only up to where the questions' glyphs end.
    asked = max(p.bbox[2] for p, t in zip(found, texts, strict=True) if t in questions)
    rooms = [p.max_bbox for p, t in zip(found, texts, strict=True) if t.startswith("The next")]
    assert rooms and all(r is not None and r[0] >= asked for r in rooms), (asked, rooms)


def test_a_tables_header_row_below_a_running_head_is_cut_into_cells() -> None:
    """A table of numbers at the top of the left column, its header "Action P1 ... P6 AVG SD"
    set close below the running head (two pieces far apart, across the page) while the right
    column's text starts beside the header: the header is a row of the table, its words are
    cells (each on its column), not one string set across the columns."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    put_runs(page, 54, 69, [("CHI 23, April 23-28, 2023, Hamburg, Germany", False)], 7)
    put_runs(page, 523, 69, [("Chang et al.", False)], 7)
    columns = [127.0, 149.0, 170.0, 191.0, 212.0, 233.0, 256.0, 280.0]
    heads = ["P1", "P2", "P3", "P4", "P5", "P6", "AVG", "SD"]
    put_runs(page, 59, 93, [("Action", True)], 8)
    for x, head in zip(columns, heads, strict=True):
        put_runs(page, x, 93, [(head, True)], 8)
    labels = ["Paper Opens", "Card Opens", "- Familiar", "- Seen again", "- No mark", "Saves"]
    for k, label in enumerate(labels):
        base = 103.0 + 10 * k
        put_runs(page, 59, base, [(label, False)], 8)
        for i, x in enumerate(columns):
            put_runs(page, x, base, [(f"{(17 * k + 7 * i) % 90 + 10}", False)], 8)
    right = (
        "In particular, one participant described changing her way of working over the week"
        " of the study, and she built up her paper library and reading history while the"
        " system went on to show her the citations she had seen before in other papers."
    )
    for i, line in enumerate(_wrapped(right, 240, 9)):
        put_runs(page, 318, 96 + 11 * i, [(line, False)], 9)
    texts = [" ".join(without_tags(p.text).split()) for p in read_doc(doc)]
    # "AVG" and "SD" are notation, printed as they are: merged into a row they were sent.
    assert not [t for t in texts if "AVG" in t or t.endswith(" SD")], texts
    assert "Action" in texts, texts


def test_a_quoted_title_wrapped_in_title_case_is_one_cell() -> None:
    """S2ORC (ACL 2020) Table 7: a category | quoted paper title table, the titles justified
    and wrapped in their cells. A second line in title case ("Knowledge Graph Embedding”")
    goes on a line that ends in "for" inside an open quotation: one request, as the titles
    whose second line starts in lower case are; the categories stay apart."""
    rows = [
        ("Region A", []),
        ("cs.LG", ["“On Unifying Deep Generative Models”"]),
        ("stat.ML", ["“Learning Disentangled Representations", "with Semi-Supervised Models”"]),
        ("cs.CV", ["“Variational methods for conditional multi-", "modal deep learning”"]),
        ("Region B", []),
        ("cs.CL", ["“TransA: An Adaptive Approach for", "Knowledge Graph Embedding”"]),
        ("cs.AI", ["“TorusE: Knowledge Graph Embedding on", "a Lie Group”"]),
        ("cs.LG", ["“Learning Representations of Sets of", "Graph Embeddings”"]),
        ("stat.ML", ["“Neural Embeddings of Graphs in Hyper-", "bolic Space”"]),
    ]
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="serif", fontbuffer=TIMES.buffer)  # with its curly quotes
    for k, text in enumerate(wrap(f"{INTRO} {OUTRO}", RIGHT[1] - RIGHT[0])):
        page.insert_text((RIGHT[0], TOP + k * LEADING), text, fontsize=SIZE, fontname="serif")
    page.draw_line((310, 270), (530, 270))
    base = 282.0
    for category, title in rows:
        if not title:
            page.draw_line((310, base - 12), (530, base - 12))
        page.insert_text((318.4, base), category, fontsize=9.0, fontname="serif")
        for k, text in enumerate(title):
            words = text.split()
            if k == 0 and len(title) > 1:  # justified to the cell's right edge, as in the PDF
                room = 514.4 - 358.5 - sum(TIMES.text_length(w, 9.0) for w in words)
                gap, x = room / (len(words) - 1), 358.5
                for word in words:
                    page.insert_text((x, base), word, fontsize=9.0, fontname="serif")
                    x += TIMES.text_length(word, 9.0) + gap
            else:
                page.insert_text((358.5, base + 10 * k), text, fontsize=9.0, fontname="serif")
        base += 10 * max(1, len(title)) + (5 if title else 6)
    page.draw_line((310, base - 4), (530, base - 4))
    caption = "Table 7: Sampled papers in clusters from the embedding space in Figure 3."
    page.insert_text((RIGHT[0], base + 20), caption, fontsize=SIZE, fontname="serif")
    texts = [" ".join(p.text.split()) for p in read_doc(doc)]
    for category, title in rows:
        assert category in texts, texts
        if title:  # a hyphen at a line's end goes or stays as the paper's vocabulary says
            joined = " ".join(title)
            assert {joined.replace("- ", ""), joined.replace("- ", "-")} & set(texts), texts


def test_short_example_lines_keep_their_breaks() -> None:
    """03 p20: after a paragraph, lines led by one word and a number ("Summary 2 ...",
    "Summary 3 ...") each end a sentence, one of them nearly at the column's edge; a remark in
    parentheses ends its line with room for the next line's first word. Each is a paragraph
    of its own, not run into one flowing paragraph with the text around it."""
    width = 420.0
    summaries = [
        "Summary 2 (snippet shown) = Albert Szent-Gyorgyi won the 1955 Nobel Prize for"
        " finding Vitamin C.",
        "Summary 3 (snippet shown) = Vitamin C was the first chemically produced Vitamin.",
        "Summary 4 (snippet shown) = Apple contains vitamin C.",
    ]
    remark = (
        "(This is an illustrative example only, the actual annotation task has much longer"
        " summaries.)"
    )
    after = "The rating scale is from 0 to 5, where 0 is the lowest possible rating " * 3
    lines = [*wrap(INTRO, width), *summaries, *wrap(OUTRO, width), remark, *wrap(after, width)]
    # "Summary 2" ends near the column's edge, the others and the remark within a quarter.
    assert width - 2 * SIZE < TEXT.text_length(summaries[0], SIZE) < width
    assert TEXT.text_length(remark, SIZE) > 0.75 * width
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for k, text in enumerate(lines):
        page.insert_text((WIDE[0], TOP + k * LEADING), text, fontsize=SIZE, fontname="tiro")
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert [*summaries, remark] == [t for t in texts if t in [*summaries, remark]], texts
    assert INTRO in texts and OUTRO in texts, texts


def _picture_page() -> pymupdf.Document:
    """A picture made as a page of its own, as plotting and screenshot tools make them: a white
    rectangle the size of that page behind a few outlined shapes in its middle."""
    picture = pymupdf.open()
    page = picture.new_page(width=360, height=220)
    shape = page.new_shape()
    shape.draw_rect(page.rect)
    shape.finish(color=None, fill=(1, 1, 1))
    for k in range(4):
        shape.draw_circle((90 + 60 * k, 100), 18)
        shape.finish(color=(0, 0, 0), fill=(0.9, 0.6, 0.2), width=1)
    shape.draw_rect(pymupdf.Rect(50, 70, 310, 130))
    shape.finish(color=(0.2, 0.2, 0.2), width=1)
    shape.commit()
    return picture


def test_a_caption_under_a_picture_pasted_larger_than_its_clip_is_sent() -> None:
    """A picture pasted in clipped to its middle: the white rectangle behind it, the size of
    the picture's own page, reaches past the clip over the caption below. The figure is what
    shows, so the caption under it is sent whole and the body text after it too."""
    picture = _picture_page()
    doc = pymupdf.open()
    sheet = Sheet(doc)
    # The middle of the picture's page (280 x 80 of 360 x 220) fills the figure's place: the
    # page's white rectangle reaches 130 pt below it, less than a page in size.
    shown = pymupdf.Rect(WIDE[0], TOP, WIDE[1], TOP + (WIDE[1] - WIDE[0]) * 80 / 280)
    sheet.page.show_pdf_page(shown, picture, 0, clip=pymupdf.Rect(40, 60, 320, 140))
    caption = (
        "Figure 1: The reading interface helps readers find their way through a paper: it "
        "shows a guide of key questions beside the text and jumps to the passage that answers "
        "each one, with a plain summary of that passage."
    )
    below = shown.y1 + 14
    for line in wrap(caption, (WIDE[1] - WIDE[0]) * SIZE / 8):  # set small, as captions are
        sheet.writer.append((WIDE[0], below), line, TEXT, 8)
        below += 10
    sheet.paragraph(INTRO, WIDE, below + 10)
    for column in (LEFT, RIGHT):  # the page's body text, under the picture's page
        sheet.paragraph(OUTRO, column, sheet.paragraph(INTRO, column, 400) + 4)
    sheet.write()
    drawn = [d for d in sheet.page.get_drawings() if d.get("fill") == (1.0, 1.0, 1.0)]
    assert drawn and drawn[0]["rect"].y1 > below + 2 * LEADING  # it does reach over both
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert " ".join(caption.split()) in texts, texts
    assert sum("Automatic evaluation" in t for t in texts) == 3, texts


def test_a_footnote_at_the_foot_of_the_references_column_is_translated() -> None:
    """The last page of the text, its references begun under it: the note at the foot of that
    column (a raised marker, small print, under a short rule) is the paper's own footnote and
    is translated; the entries above it and beside it are not."""
    doc = pymupdf.open()
    text = Sheet(doc)  # the page before: the paper's text, in two columns
    for column in (LEFT, RIGHT):
        y = TOP
        while y < 700:
            y = text.paragraph(OUTRO, column, text.paragraph(INTRO, column, y) + 4) + 4
    text.write()
    sheet = Sheet(doc)
    below = sheet.paragraph(INTRO, LEFT, TOP)
    sheet.writer.append((LEFT[0], below + 14), "References", pymupdf.Font("tibo"), 12)
    y = below + 34
    entries = [
        f"Ann Lee, Bo Chen, and Cy Diaz. 20{10 + k}. A method for task {k} of many kinds. In"
        f" Proceedings of the {k}th Conference on Methods, pages {k}1-{k}9."
        for k in range(1, 13)
    ]
    for k, entry in enumerate(entries):
        column = LEFT if k < 5 else RIGHT
        if k == 5:
            y = TOP
        for i, line in enumerate(wrap(entry, column[1] - column[0] - 8)):
            sheet.writer.append((column[0] + (8 if i else 0), y), line, TEXT, 9)
            y += 11
        y += 5
    foot = 760.0
    shape = sheet.page.new_shape()
    shape.draw_line((LEFT[0], foot - 14), (LEFT[0] + 70, foot - 14))
    shape.finish(color=(0, 0, 0), width=0.4)
    shape.commit()
    sheet.writer.append((LEFT[0], foot - 3), "19", TEXT, 6)
    sheet.writer.append(
        (LEFT[0] + 6, foot), "The Kaggle CORD-19 and TREC-COVID competitions.", TEXT, 9
    )
    sheet.writer.append((LEFT[0], foot + 11), "See Wang et al. (2020) for details.", TEXT, 9)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert (
        "The Kaggle CORD-19 and TREC-COVID competitions. See Wang et al. (2020) for details."
        in texts
    ), texts
    assert not [t for t in texts if "Ann Lee" in t or "Proceedings" in t], texts


def _justified_cell_table() -> pymupdf.Document:
    """A table of three text columns (papermage p5, Table 1): a cell's first line justified,
    each word placed on its own with the spaces stretched alike (9.4 pt at 9 pt), a class name
    in a monospaced face, a citation "(Neumann et al., 2019)" in the middle."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    x_use, x_what, x_how, edge = 77.0, 128.0, 234.0, 540.0
    put_runs(page, x_use, 85, [("Use case", True)], 9)
    put_runs(page, x_what, 85, [("Description", True)], 9)
    put_runs(page, x_how, 85, [("Examples", True)], 9)
    first = ["SentencePredictor", "wraps", "sciSpaCy", "(Neumann", "et", "al.,", "2019)", "and"]
    mono = pymupdf.Font("cour")
    widths = [(mono if k == 0 else TIMES).text_length(w, 9) for k, w in enumerate(first)]
    space = (edge - x_how - sum(widths)) / (len(first) - 1)
    assert 9 < space < 1.15 * 9  # stretched past a font size, as on the paper
    x = x_how
    for k, (word, width) in enumerate(zip(first, widths, strict=True)):
        page.insert_text((x, 102), word, fontsize=9, fontname="cour" if k == 0 else "tiro")
        x += width + space
    rest = [
        "PySBD (Sadvilkar and Neumann, 2020) to segment sentences. The word predictor is",
        "a custom model to identify broken words split across PDF lines or columns, and",
        "the last one is a set of rules on top of both layout and logical structure models.",
    ]
    for k, line in enumerate(rest, start=1):
        put_runs(page, x_how, 102 + 10 * k, [(line, False)], 9)
    put_runs(page, x_use, 102, [("Linguistic/", False)], 9)
    put_runs(page, x_use, 112, [("Semantic", False)], 9)
    for k, line in enumerate(["Segments doc into text", "units used downstream."]):
        put_runs(page, x_what, 102 + 10 * k, [(line, False)], 9)
    y = 102.0 + 10 * len(rest) + 14
    _two_more_rows(page, (x_use, x_what, x_how), y)
    return doc


def test_a_cells_justified_line_with_a_citation_is_one_sentence() -> None:
    """A cell's justified first line stretches its word spaces past a font size, those beside
    a citation's bracket and year too: the line is not cut into cells there ("SentencePredictor
    wraps sciSpaCy" | "(Neumann et al.," | "2019)" | "and"), the cell's sentence is one
    request with its year."""
    texts = [" ".join(without_tags(p.text).split()) for p in read_doc(_justified_cell_table())]
    cell = [t for t in texts if "sciSpaCy" in t or "Neumann" in t or t == "and"]
    assert len(cell) == 1, texts
    assert "wraps sciSpaCy (Neumann et al., 2019) and PySBD (Sadvilkar" in cell[0], texts
    assert "Segments doc into text units used downstream." in texts, texts


def test_a_figure_reference_on_a_paragraphs_last_line_is_no_caption() -> None:
    """A sentence runs to the column's edge with "... displayed in" and ends on the next line
    with "Fig. 2.": that line goes on the sentence, it is no caption of its own, and the
    paragraph after it is not read as the sentence's continuation (2021 key-error p9)."""
    doc = pymupdf.open()
    sheet = Sheet(doc)
    text = (
        "A similar development as in the first appendix can be done for the full-transistor"
        " circuit. In this case, the resistor is replaced by a transistor working in its triode"
        " region, which gives the circuit that is displayed in"
    )
    lines = wrap(text, LEFT[1] - LEFT[0], 12.0)
    assert TEXT.text_length(lines[-1], SIZE) > 0.8 * (LEFT[1] - LEFT[0])
    y = TOP
    for k, line in enumerate([*lines, "Fig. 2."]):
        sheet.writer.append((LEFT[0] + (12.0 if k == 0 else 0.0), y), line, TEXT, SIZE)
        y += LEADING
    sheet.paragraph(OUTRO, LEFT, y)
    sheet.paragraph(INTRO, RIGHT, TOP)
    sheet.write()
    texts = [" ".join(p.text.split()) for p in read(doc.tobytes())]
    assert f"{text} Fig. 2." in texts, texts
    assert OUTRO in texts, texts
    found = passages(read(doc.tobytes()))
    assert not [p.text for p in found if "displayed in" in p.text and "judgments" in p.text]

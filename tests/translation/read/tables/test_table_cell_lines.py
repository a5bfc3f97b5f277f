"""Which lines of a table are one cell, on constructed pages read for real: rows set as
blocks of their own, wrapped cells beside other cells, a header row under a running head,
justified cell lines and quoted titles."""

from __future__ import annotations

import pymupdf

from tests.helpers.pdfgen.columns import INTRO, OUTRO, RIGHT, TOP
from tests.helpers.pdfgen.layouts import cell_row, lines_block
from tests.helpers.pdfgen.layouts import page as layout_page
from tests.helpers.pdfgen.sheet import LEADING, SIZE, TIMES, put_runs, read_doc, words_at, wrap
from translation.read.layout import Line
from translation.read.segment import segment
from translation.read.style.style_marks import without_tags


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
    as one request, not line by line.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
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


def test_table_rows_go_on_below_a_row_whose_wide_cell_makes_most_of_it() -> None:
    """A table of three columns whose Examples cell runs wide, laid out as the PDF has it (a
    block per column of a row, the next row's first cell in the Examples block): on the row
    that ends a description cell ("stream models."), that cell makes most of the row's width,
    yet the row is one of the table's (its gap is the table's column gap), and the rows below
    it are still table rows: each cell of two lines is one request ("Layout Structure",
    "Segments doc into visual block regions."), not lines of two columns read across.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
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


def test_a_wrapped_cell_whose_lines_all_have_cells_beside_them_is_one_request() -> None:
    """papermage p4: every line of a wrapped Description cell has a Use-case or an Examples
    line beside it (the PDF sets each visual row as a block, a line per cell) and none ends in
    a hyphen; the rows are set further apart than the lines of a cell. Each cell is one
    request, not a request a line; the names of a data table set at one pitch stay apart.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
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
    right of the question's glyphs.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
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
    cells (each on its column), not one string set across the columns.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
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
    whose second line starts in lower case are; the categories stay apart.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
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
        words_at(page, [(RIGHT[0], TOP + k * LEADING, text, SIZE, "serif")])
    page.draw_line((310, 270), (530, 270))
    base = 282.0
    for category, title in rows:
        if not title:
            page.draw_line((310, base - 12), (530, base - 12))
        words_at(page, [(318.4, base, category, 9.0, "serif")])
        for k, text in enumerate(title):
            words = text.split()
            if k == 0 and len(title) > 1:  # justified to the cell's right edge, as in the PDF
                room = 514.4 - 358.5 - sum(TIMES.text_length(w, 9.0) for w in words)
                gap, x = room / (len(words) - 1), 358.5
                for word in words:
                    words_at(page, [(x, base, word, 9.0, "serif")])
                    x += TIMES.text_length(word, 9.0) + gap
            else:
                words_at(page, [(358.5, base + 10 * k, text, 9.0, "serif")])
        base += 10 * max(1, len(title)) + (5 if title else 6)
    page.draw_line((310, base - 4), (530, base - 4))
    caption = "Table 7: Sampled papers in clusters from the embedding space in Figure 3."
    words_at(page, [(RIGHT[0], base + 20, caption, SIZE, "serif")])
    texts = [" ".join(p.text.split()) for p in read_doc(doc)]
    for category, title in rows:
        assert category in texts, texts
        if title:  # a hyphen at a line's end goes or stays as the paper's vocabulary says
            joined = " ".join(title)
            assert {joined.replace("- ", ""), joined.replace("- ", "-")} & set(texts), texts


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
        words_at(page, [(x, 102, word, 9, "cour" if k == 0 else "tiro")])
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
    request with its year.

    Origin: a paper outside the corpus (issue 22), the layout that broke a request."""
    texts = [" ".join(without_tags(p.text).split()) for p in read_doc(_justified_cell_table())]
    cell = [t for t in texts if "sciSpaCy" in t or "Neumann" in t or t == "and"]
    assert len(cell) == 1, texts
    assert "wraps sciSpaCy (Neumann et al., 2019) and PySBD (Sadvilkar" in cell[0], texts
    assert "Segments doc into text units used downstream." in texts, texts

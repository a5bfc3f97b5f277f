"""Regions that must not be sent (issue 23 item 3): displayed code and command syntax, and
equations on scanned pages. Each test sets a real PDF page with PyMuPDF and reads what the
pipeline sends."""

from __future__ import annotations

import pymupdf
import pytest

from tests.helpers.pdfgen.sheet import lines_at, words_at
from translation.read.blocks.code_text import looks_like_code
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.ocr import OcrOptions
from translation.read.ocr.equations import is_equation
from translation.read.paragraph import Paragraph

PROSE = (
    "We describe a careful method for the evaluation of the models that we study in this",
    "paper, and we compare it with the previous approaches on several of the datasets that",
    "are common in the field, with results that support the main hypothesis of the work.",
)
LATEX = (
    r"\begin{figure}[t]",
    r"  \centering",
    r"  \includegraphics[width=\linewidth]{plots/results.pdf}",
    r"  \caption{Results of the three models on the test set.}",
    r"  \label{fig:results}",
    r"\end{figure}",
)
COMMAND = (
    "python train.py --model large --epochs 10 --output results/ \\",
    "    --learning-rate 3e-4 --batch-size 32 --seed 7",
)


def read(doc: pymupdf.Document) -> list[Paragraph]:
    return extract_document(open_document(bytes(doc.tobytes()))).paragraphs


@pytest.mark.parametrize("font", ["helv", "cour"])
def test_displayed_latex_and_a_command_line_are_not_sent(font: str) -> None:
    """In a typewriter face and in a face no PDF flags monospaced alike."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 90.0
    for intro, block in (
        ("A figure is included with the following lines of source code:", LATEX),
        ("The model is trained with the command below.", COMMAND),
    ):
        y = lines_at(page, 72, y, (*PROSE, intro), 10, pitch=12.5) + 6
        y = lines_at(page, 90, y, block, 9, font, pitch=11) + 10
    sent = " ".join(p.text for p in read(doc))
    assert "lines of source code:" in sent and "with the command below." in sent
    for word in ("begin", "includegraphics", "caption", "Results of the three", "epochs", "seed"):
        assert word not in sent


@pytest.mark.parametrize(
    "text",
    [
        r"Use \textbf{text} to set text in bold and \emph{text} for emphasis.",
        "The flags --foo and --bar set the sizes of the two buffers that the program uses.",
        "See https://github.com/allenai/specter_data for the code and the data.",
    ],
)
def test_prose_that_names_commands_is_not_code(text: str) -> None:
    assert not looks_like_code(text)


def test_equations_on_a_scanned_page_are_not_sent_as_prose() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 100.0
    for equation in ("L(x) = a x + b y - c (1)", "f(y) = g(x) + h(z) / k (2)"):
        y = lines_at(page, 72, y, PROSE, 11, pitch=14) + 14
        words_at(page, [(220, y, equation, 12, "tiit")])
        y += 28
    lines_at(page, 72, y, PROSE, 11, pitch=14)
    pixels = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    scan = pymupdf.open()
    scan.new_page(width=595, height=842).insert_image(
        pymupdf.Rect(0, 0, 595, 842), stream=pixels.tobytes("png")
    )
    found = extract_document(open_document(bytes(scan.tobytes())), ocr=OcrOptions())
    texts = [p.text for p in found.paragraphs]
    assert len(texts) == 3 and all(t.startswith("We describe a careful method") for t in texts)
    assert not [t for t in texts if "=" in t]


@pytest.mark.parametrize(
    ("line", "equation"),
    [
        ("L(θ) = −∑ log p(y | x; θ) (1)", True),
        ("h_t = tanh(W x_t + U h_{t-1} + b)", True),
        ("We set a = 0.5 and b = 2 for all runs.", False),
        ("The loss is L = a + b, where a is", False),
        ("Table 1: Results = 5", False),
        ("dings, denoted as Im, = [Im,”; Im; ]. by con-", False),  # corpus 10, page 3
    ],
)
def test_an_ocr_line_is_an_equation_by_its_operators_and_few_words(
    line: str, equation: bool
) -> None:
    assert is_equation(line) is equation

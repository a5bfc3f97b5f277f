"""A page of a paper's body in two columns, as the reading tests build it with
:class:`~tests.helpers.pdfgen.sheet.Sheet`: the columns' edges, the first baseline, and the
prose set in them (two paragraphs of plain English that end their sentences)."""

from __future__ import annotations

from tests.helpers.pdfgen.sheet import TIMES

LEFT, RIGHT, WIDE = (60.0, 285.0), (310.0, 535.0), (72.0, 523.0)  # left and right x
TOP = 100.0  # the first baseline
TEXT = TIMES  # the body's face

INTRO = (
    "Automatic evaluation of summaries has a long history in the field. Many studies compare"
    " the output of a system with references written by people, and they report the agreement"
    " of the metrics with the judgments of experts on a sample of documents."
)
OUTRO = (
    "We therefore collect new judgments for every system. The annotators read each summary"
    " with its source document and rate it on a scale from one to five."
)

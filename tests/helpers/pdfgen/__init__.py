"""Constructed test pages: one builder, in parts.

- :mod:`.sheet`: the page builder (:class:`~.sheet.Sheet`: text set at baselines, drawn when
  done; wrapped paragraphs, a display equation, a figure box), its fonts, and reading a built
  page (``read``, ``read_doc``); text at exact points in a face named as a PDF names it
  (``words_at``, ``lines_at``, ``spaced_at``, ``put_runs``) and a paragraph wrapped in a box
  (``box_at``), drawn at once.
- :mod:`.columns`: the two columns of a paper's body and the prose the reading tests set in
  them.
- :mod:`.paper`: :func:`~.paper.make_paper`, a whole generated paper with its ground truth, and
  ``join_pages`` (long papers made of corpus pages).
- :mod:`.textbox`: :func:`~.textbox.small_paper`, the one small paper of text boxes that
  every job's test sends (server, CLI, pipeline), and a staged one for the previews.
- :mod:`.type3`: a glyph of a Type 3 font drawn into a built page (TeX's big operators).
- :mod:`.layouts`: literal page layouts (spans, lines, blocks) for the pure reading rules.
- :mod:`.typeset`: a page read, pseudo-translated and set again, and what a reader sees on it.
"""

from tests.helpers.pdfgen.paper import Line, Truth, join_pages, make_paper, text_page
from tests.helpers.pdfgen.sheet import TIMES, TIMES_BOLD, Sheet, math_font

__all__ = [
    "TIMES",
    "TIMES_BOLD",
    "Line",
    "Sheet",
    "Truth",
    "join_pages",
    "make_paper",
    "math_font",
    "text_page",
]

"""The messages a PDF worker's child sends its parent before a step's reply
(``translation.worker``, ``translation.worker_child``).

A module of its own, importing nothing: the parent reads these messages without importing the
engine the child runs (the reading's stages, the typesetter; the forkserver has them already).
"""

from __future__ import annotations

#: What the child sends before (False) and after (True) it reads a page by OCR: the parent
#: times the page against the OCR bounds instead of the step's limit.
OCR_PAGE = "ocr-page"


#: What the child sends with paragraphs read early (``translation.read.early``).
PART = "part"

"""What reading a document gives: the paragraphs to translate, the pages of the references
section, and the text kept as it is (``translation.read.pipeline`` makes it).

A module of its own, importing nothing of the reading's stages: the server and the PDF
worker's parent pass a ``Segmentation`` along without running any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from translation.read.paragraph import Paragraph

if TYPE_CHECKING:
    from translation.read.regions.page_regions import Kept


@dataclass(frozen=True, slots=True)
class Segmentation:
    """The paragraphs to translate, and the pages (0-based, among the wanted ones) where the
    references section was found (kept as it is unless references are included)."""

    paragraphs: list[Paragraph]
    reference_pages: tuple[int, ...] = ()
    #: The text of the wanted pages that reached no paragraph, each with why it is kept.
    kept: tuple[Kept, ...] = ()

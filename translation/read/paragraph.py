"""The unit of translation and typesetting that segmentation produces."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from translation.read.layout import Rect, Vector
from translation.read.measures import DEFAULT_LEADING

# --- output ---------------------------------------------------------------------------------


class ParagraphKind(StrEnum):
    """The role of a paragraph on the page (the renderer may style each its own way)."""

    BODY = "body"
    HEADING = "heading"  # section titles, numbered ("3.1 Encoding module") or not
    CELL = "cell"
    REFERENCE = "reference"
    LIST_ITEM = "list_item"  # its ``label`` ("II.", "•", "(a)") comes first
    FOOTNOTE = "footnote"  # its ``label`` is the marker ("4", "①", "*")
    CAPTION = "caption"  # "Figure 2. ...", "Table 1: ...", "Algorithm 1 ..."
    ALGORITHM = "algorithm"  # one line of pseudo-code; ``label`` is "3:" or "Output:"
    AUTHOR = "author"  # front matter: affiliations, addresses, publication details


class Align(StrEnum):
    LEFT = "left"
    CENTER = "center"
    RIGHT = "right"  # a table cell in a column set flush right
    JUSTIFY = "justify"


@dataclass(slots=True)
class Paragraph:
    """One unit of translation and of typesetting.

    ``text`` is what the LLM gets: the source with inline math, URLs and the like replaced by
    placeholders; ``placeholders`` maps each placeholder to its original text and
    ``formula_boxes`` to the page areas of its glyphs (for glyphs without Unicode, which can only
    be copied as they look). ``bbox`` is the area the translation must fit in; ``rects`` are the
    areas to redact, tight around the source glyphs so nothing else is touched (all in unrotated
    page coordinates). ``direction`` is the reading direction (unit vector, y down).
    """

    id: str
    page: int
    text: str
    placeholders: dict[str, str]
    bbox: Rect
    rects: tuple[Rect, ...]
    font_size: float
    color: int = 0
    bold: bool = False
    direction: Vector = (1.0, 0.0)
    align: Align = Align.LEFT
    kind: ParagraphKind = ParagraphKind.BODY
    line_pitch: float = DEFAULT_LEADING  # baseline distance of the source lines / font size
    line_count: int = 1
    formula_boxes: dict[str, tuple[Rect, ...]] = field(default_factory=dict)
    #: Formulas to copy as their original glyphs (math fonts, sub/superscripts), and for each
    #: piece of their ``formula_boxes`` how far its bottom lies below the source baseline.
    glyph_formulas: frozenset[str] = frozenset()
    formula_descents: dict[str, tuple[float, ...]] = field(default_factory=dict)
    #: Placeholders standing for code set in a monospaced font: set monospaced again.
    code_formulas: frozenset[str] = frozenset()
    #: The label printed first and never sent (a list item's "II. ", a footnote's marker, an
    #: algorithm line's "3: "), with the spaces after it; ``restore`` puts it back first.
    label: str = ""
    #: How the label is printed (see ``translation.read.blocks.label_look``): its style code
    #: (None: the body's), size and baseline rise as shares of the text size (a superscript marker),
    #: and the hanging indent of the lines after the first (points; 0: none).
    label_style: int | None = None
    label_scale: float = 1.0
    label_rise: float = 0.0
    hang: float = 0.0
    #: How far the first line starts right of the others (points; 0: flush), as printed.
    indent: float = 0.0
    #: Style beyond ``color``/``bold`` (see ``translation.read.style.paragraph_style``): the body
    #: is italic; a run-in
    #: ``lead`` ("Finding:") in ``lead_style``; other ``runs`` of (source text, style code).
    italic: bool = False
    lead: str = ""
    lead_style: int = 0
    runs: tuple[tuple[str, int], ...] = ()
    #: The column the paragraph sits in: (left, right) along its reading direction.
    column: tuple[float, float] = (0.0, 0.0)
    #: For a table cell: the area its translation may grow into (its column's free width,
    #: the free space below it), so it need not shrink much below the source size.
    max_bbox: Rect | None = None
    #: The passage (one request to the model) this paragraph is a piece of: the id of its
    #: first piece, shared by every piece of a paragraph that a column, a page, a float or a
    #: display equation interrupts (see ``translation.read.flow.links``); empty for a paragraph sent
    #: alone. Placeholder numbers never repeat among the pieces of one passage.
    passage: str = ""
    #: The placeholder standing, in the passage's text, for what interrupts the sentence between
    #: the previous piece and this one: a display equation, or this list item's label (empty
    #: when nothing does).
    break_before: str = ""
    #: Where the previous piece of the passage ends in a hyphen and this one goes on with
    #: letters: whether the hyphen breaks one word, as the document's own vocabulary decided
    #: it (see ``translation.read.words.lexicon.joins_at_break``); None: the word list decides.
    hyphen_joins: bool | None = None

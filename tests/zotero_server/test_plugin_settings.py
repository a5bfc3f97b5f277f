"""Every plugin setting a user can touch does what it says (issue 26): each one sent through
``POST /translate`` with the plugin's own field names and string values, on corpus papers,
through the real server and the fake vLLM (whose log shows what the model was sent)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pymupdf
import pytest

from common.settings import Settings
from tests.conftest import CorpusCut
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import (
    RunningServer,
    fake_llm_fixture,
    hangul_count,
    plugin_body,
    run_app,
    srv_fixture,
)
from tests.helpers.vllm import FakeVLLMProcess
from translation.render.faces import FontFamily, find_face
from translation.render.outline import dual_outline, translated_title
from zotero_server.protocol import Operation, PluginRequest, parse_request

__all__ = ["fake_llm_fixture", "srv_fixture"]

PAPER_02 = "02_naacl2018_s2_literature_graph_2col_short.pdf"
PAPER_07 = "07_iop_jpcs2022_semeagat_1col_word_math.pdf"
NOTO = Settings.model_fields["font_dir"].default
needs_noto = pytest.mark.skipif(
    find_face(NOTO, "ko", True) is None or find_face(NOTO, "ko", False) is None,
    reason=f"fonts-noto-cjk is not installed ({NOTO})",
)


# Paper 02 cut to the pages each setting shows on: page 1 (title, abstract, bold headings, five
# "literature graph"), page 2 (nine more), page 3 (Table 1, heads "Precision" and "Recall").


@pytest.fixture(name="paper")
def paper_fixture(corpus_cut: CorpusCut) -> bytes:
    """Page 1 of paper 02: enough for a setting about the face, the files or the cache."""
    return corpus_cut(PAPER_02, [0]).read_bytes()


@pytest.fixture(name="table_paper")
def table_paper_fixture(corpus_cut: CorpusCut) -> bytes:
    """Paper 02's Table 1 page, then two more pages (they may be skipped)."""
    return corpus_cut(PAPER_02, [2, 3, 4]).read_bytes()


def translate(
    srv: RunningServer, pdf: bytes, **fields: Any
) -> tuple[dict[str, Any], dict[str, httpx.Response]]:
    """POST the plugin's body; the answer and the files it lists (name -> response)."""
    with srv.client() as client:
        answer = client.post("/translate", json=plugin_body(pdf, "p.pdf", **fields))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        files = {name: client.get(f"/translatedFile/{name}") for name in body["fileList"]}
    return body, files


def last_task(srv: RunningServer) -> dict[str, Any]:
    with srv.client() as client:
        tasks = client.get("/api/tasks").json()
    items = tasks["tasks"] if isinstance(tasks, dict) else tasks
    return dict(max(items, key=lambda t: str(t["startTime"])))


def fonts_of(pdf: bytes) -> set[str]:
    with pymupdf.open(stream=pdf) as doc:
        return {font[3] for page in doc for font in page.get_fonts()}


# --- fontFamily ---------------------------------------------------------------------------------


@needs_noto
@pytest.mark.corpus
@pytest.mark.parametrize(
    ("family", "face", "named"),
    [
        ("serif", "NotoSerifCJKkr", "Noto Serif CJK KR"),
        ("sans-serif", "NotoSansCJKkr", "Noto Sans CJK KR"),
    ],
)
def test_font_family_picks_the_face_with_its_real_bold(
    srv: RunningServer, paper: bytes, family: str, face: str, named: str
) -> None:
    _, files = translate(srv, paper, fontFamily=family, dual="false")
    mono = files["p-mono.pdf"].content
    fonts = fonts_of(mono)
    # Each weight embedded once, cut to the glyphs used (a subset tag, and a small file).
    assert {name.split("+")[-1] for name in fonts} >= {f"{face}-Regular", f"{face}-Bold"}
    assert all("+" in name for name in fonts if face in name)
    assert len(mono) <= 2 * len(paper)
    with pymupdf.open(stream=mono) as doc:
        traces = [t for page in doc for t in page.get_texttrace()]
        assert hangul_count(doc[0].get_text()) > 300  # the text is readable text
    bold = [t for t in traces if t["font"].endswith(f"{face}-Bold")]
    assert bold and all(t["type"] == 0 for t in bold)  # filled glyphs, not a stroked outline
    assert not [t for t in traces if face in t["font"] and t["type"] != 0]
    assert f"set in {named} with its bold" in last_task(srv)["message"]


@needs_noto
@pytest.mark.corpus
def test_auto_sets_a_serif_paper_in_the_serif_face(srv: RunningServer, paper: bytes) -> None:
    _, files = translate(srv, paper, fontFamily="auto", dual="false")  # paper 02 is in Times
    assert any("NotoSerifCJKkr-Regular" in name for name in fonts_of(files["p-mono.pdf"].content))
    assert "set in Noto Serif CJK KR with its bold" in last_task(srv)["message"]


@pytest.mark.corpus
def test_without_the_fonts_the_built_in_face_is_used_and_named(
    settings: Settings, fake_llm: FakeVLLMProcess, paper: bytes, tmp_path: Path
) -> None:
    missing = tmp_path / "no-fonts-here"
    configured = settings.model_copy(
        update={"llm_base_url": fake_llm.base_url, "font_dir": missing}
    )
    with run_app(configured) as srv:
        _, files = translate(srv, paper, fontFamily="serif", dual="false")
        message = last_task(srv)["message"]
    fonts = fonts_of(files["p-mono.pdf"].content)
    assert any("Droid Sans Fallback" in name for name in fonts)
    assert not any("CJK" in name for name in fonts)
    assert "set in Droid Sans Fallback (built-in)" in message


def test_a_font_family_we_do_not_know_is_the_papers_own_face(srv: RunningServer) -> None:
    """A plugin release with a new family must not stop every paper over a font."""
    pdf = small_paper(paragraphs=["A sentence to translate here."])
    with srv.client() as client:
        answer = client.post("/translate", json=plugin_body(pdf, "p.pdf", fontFamily="comic"))
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "success"


# --- translateTableText -------------------------------------------------------------------------


@pytest.mark.corpus
def test_tables_stay_as_they_are_unless_table_text_is_translated(
    srv: RunningServer, fake_llm: FakeVLLMProcess, corpus_cut: CorpusCut
) -> None:
    # Paper 02's Table 1 has the column heads "Precision" and "Recall".
    paper = corpus_cut(PAPER_02, [2]).read_bytes()
    _, kept = translate(srv, paper, translateTableText="false", dual="false")
    sent_kept = fake_llm.texts()
    assert sent_kept and not [t for t in sent_kept if t.strip() in ("Precision", "Recall")]
    words = pdf_words(kept["p-mono.pdf"].content)
    assert {"Precision", "Recall"} <= words

    _, done = translate(srv, paper, translateTableText="true", dual="false")
    sent_cells = fake_llm.texts()[len(sent_kept) :]  # the rest came from the cache
    assert {"Precision", "Recall"} <= {t.strip() for t in sent_cells}
    assert not {"Precision", "Recall"} & pdf_words(done["p-mono.pdf"].content)


@pytest.mark.corpus
def test_a_request_without_the_new_settings_translates_tables_and_every_page(
    srv: RunningServer, fake_llm: FakeVLLMProcess, table_paper: bytes
) -> None:
    body = plugin_body(table_paper, "p.pdf", skipLastPages="2")
    for field in (
        "translateTableText",
        "onlyIncludeTranslatedPage",
        "fontFamily",
        "saveGlossary",
        "disableGlossary",
    ):
        del body[field]
    with srv.client() as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["fileList"] == ["p-mono.pdf", "p-dual.pdf"]
        mono = client.get("/translatedFile/p-mono.pdf").content
    assert "Precision" in {t.strip() for t in fake_llm.texts()}
    with pymupdf.open(stream=mono) as doc:
        assert doc.page_count == 3  # the two pages skipped are in it too


def pdf_words(pdf: bytes) -> set[str]:
    with pymupdf.open(stream=pdf) as doc:
        return {w[4] for page in doc for w in page.get_text("words")}


# --- onlyIncludeTranslatedPage ------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize(("only", "mono_pages"), [("true", 1), ("false", 4)])
def test_only_the_translated_pages_in_the_mono_file(
    srv: RunningServer, corpus_cut: CorpusCut, only: str, mono_pages: int
) -> None:
    paper = corpus_cut(PAPER_02, [0, 5, 6, 7]).read_bytes()  # page 1 translated, 3 skipped
    _, files = translate(
        srv, paper, skipLastPages="3", onlyIncludeTranslatedPage=only, dualMode="TB"
    )
    with pymupdf.open(stream=files["p-mono.pdf"].content) as mono:
        assert mono.page_count == mono_pages
        assert hangul_count(mono[0].get_text()) > 50
    with pymupdf.open(stream=files["p-dual.pdf"].content) as dual:
        assert dual.page_count == 8  # every page beside its original


# --- disableGlossary, saveGlossary --------------------------------------------------------------

SERVER_TERMS = "source,target\nliterature graph,문헌 그래프\n"
REQUEST_TERMS = "Semantic Scholar,시맨틱 스칼라,ko\n"


@pytest.fixture(name="glossary_srv")
def glossary_srv_fixture(
    settings: Settings, fake_llm: FakeVLLMProcess, tmp_path: Path
) -> Iterator[RunningServer]:
    path = tmp_path / "server-glossary.csv"
    path.write_text(SERVER_TERMS, encoding="utf-8")
    configured = settings.model_copy(update={"llm_base_url": fake_llm.base_url, "glossary": path})
    with run_app(configured) as running:
        yield running


@pytest.mark.corpus
@pytest.mark.parametrize("disabled", ["true", "false"])
def test_disable_glossary_leaves_the_servers_terms_out(
    glossary_srv: RunningServer, fake_llm: FakeVLLMProcess, corpus_cut: CorpusCut, disabled: str
) -> None:
    paper = corpus_cut(PAPER_02, [0, 1]).read_bytes()  # "literature graph" 14 times
    _, files = translate(glossary_srv, paper, disableGlossary=disabled, dual="false")
    sent = " ".join(fake_llm.texts())
    text = re.sub(r"\s+", "", pdf_text_of(files["p-mono.pdf"].content))
    if disabled == "true":
        assert re.search(r"literature\s+graph", sent, re.I)
        assert "문헌그래프" not in text
    else:
        assert not re.search(r"literature\s+graph", sent, re.I)
        assert text.count("문헌그래프") >= 10


def pdf_text_of(pdf: bytes) -> str:
    with pymupdf.open(stream=pdf) as doc:
        return "".join(page.get_text() for page in doc)


@pytest.mark.corpus
def test_save_glossary_offers_the_jobs_glossary_as_csv(
    glossary_srv: RunningServer, paper: bytes
) -> None:
    body, files = translate(
        glossary_srv, paper, saveGlossary="true", glossary=REQUEST_TERMS, dual="false"
    )
    assert body["fileList"] == ["p-mono.pdf", "p-glossary.csv"]
    download = files["p-glossary.csv"]
    assert download.status_code == 200
    assert download.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(download.content.decode("utf-8"))))
    assert rows == [
        ["source", "target", "language"],
        ["literature graph", "문헌 그래프", ""],
        ["Semantic Scholar", "시맨틱 스칼라", "ko"],
    ]
    with httpx.Client(base_url=glossary_srv.url) as client:  # fetched once, then gone
        assert client.get("/translatedFile/p-glossary.csv").status_code == 410


@pytest.mark.corpus
def test_no_glossary_file_unless_asked(glossary_srv: RunningServer, paper: bytes) -> None:
    body, _ = translate(glossary_srv, paper, saveGlossary="false", dual="false")
    assert body["fileList"] == ["p-mono.pdf"]


# --- settings that mean nothing here ------------------------------------------------------------


@pytest.mark.corpus
def test_settings_without_meaning_here_are_accepted_and_change_nothing(
    srv: RunningServer, fake_llm: FakeVLLMProcess, paper: bytes
) -> None:
    _, plain = translate(srv, paper, dual="false")
    sent = len(fake_llm.texts())
    _, flipped = translate(
        srv,
        paper,
        dual="false",
        noWatermark="false",
        skipClean="true",
        enhanceCompatibility="true",
        disableRichTextTranslate="true",
        threadNum="1",
        qps="1",
        poolSize="7",
    )
    assert len(fake_llm.texts()) == sent  # the same requests: all from the cache
    assert pdf_text_of(flipped["p-mono.pdf"].content) == pdf_text_of(plain["p-mono.pdf"].content)


# --- bookmarks ----------------------------------------------------------------------------------


@pytest.mark.corpus
def test_the_outline_carries_the_translated_titles(srv: RunningServer, corpus_dir: Path) -> None:
    pdf = (corpus_dir / PAPER_07).read_bytes()
    with pymupdf.open(stream=pdf) as doc:
        source = doc.get_toc()
    assert len(source) == 13 and source[0][1].startswith("1.Introduction")
    _, files = translate(srv, pdf, dualMode="LR")
    with pymupdf.open(stream=files["p-mono.pdf"].content) as doc:
        mono = doc.get_toc()
    # Same entries, same pages; the section titles now in the translation, numbers kept.
    assert [(e[0], e[2]) for e in mono] == [(e[0], e[2]) for e in source]
    translated = [e[1] for e in mono if hangul_count(e[1]) > 0]
    assert len(translated) >= 12 and mono[0][1].startswith("1. ")
    with pymupdf.open(stream=files["p-dual.pdf"].content) as doc:
        dual = doc.get_toc()
    assert dual[0][1] == f"{mono[0][1]} / {source[0][1]}"  # both titles


def test_outline_titles_are_matched_with_or_without_their_numbers() -> None:
    candidates = [("Related work", "관련 연구"), ("3.1 Encoding module", "3.1 인코딩 모듈")]
    assert translated_title("2 Related work", candidates) == "2 관련 연구"
    assert translated_title("2.Related work", candidates) == "2. 관련 연구"
    assert translated_title("3.1 Encoding module", candidates) == "3.1 인코딩 모듈"
    assert translated_title("Conclusion", candidates) is None
    tb = dual_outline([[1, "Intro", 2]], [[1, "서론", 2]], "TB", translation_first=False)
    assert tb == [[1, "Intro", 3], [1, "서론", 4]]


# --- a resumed job keeps them -------------------------------------------------------------------


def test_a_resumed_job_keeps_these_settings() -> None:
    pdf = pymupdf.open()
    pdf.new_page()
    from common.language import Language

    body = plugin_body(
        pdf.tobytes(),
        "p.pdf",
        fontFamily="sans-serif",
        translateTableText="false",
        onlyIncludeTranslatedPage="true",
        disableGlossary="true",
        saveGlossary="true",
    )
    request = parse_request(
        Operation.TRANSLATE,
        body,
        {},
        default_source=Language.parse("en"),
        default_target=Language.parse("ko"),
        max_bytes=10_000_000,
    )
    again = PluginRequest.from_record(request.to_record())
    assert FontFamily(again.font_family) is FontFamily.SANS
    assert not again.translate_tables and again.only_translated_pages
    assert not again.server_glossary and again.save_glossary
    old = {
        k: v
        for k, v in request.to_record().items()
        if k not in ("font_family", "translate_tables", "only_translated_pages")
        and k not in ("server_glossary", "save_glossary")
    }
    older = PluginRequest.from_record(old)  # a record from before these settings
    assert older.font_family == "auto" and older.translate_tables and older.server_glossary

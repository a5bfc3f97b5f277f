"""The job's final message names the blocks the renderer kept as printed (issue 36), those
left untranslated and those whose translation was set apart: a user knows which pages to
look at. Through the real server and the fake vLLM, on a corpus page
whose translations would overprint each other: a macro's description read as three blocks on
one line (its first words, the rest of that line, and its second line), set in the built-in face,
as ``bench.corpus`` sets it."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from bench.corpus_pages import audit_pages
from common.settings import Settings
from tests.conftest import CorpusCut
from tests.helpers.pdfgen.typeset import kept_as_printed
from tests.helpers.server import fake_llm_fixture, plugin_body, run_app
from tests.helpers.vllm import FakeVLLMProcess
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.pages.page_space import TEXT_FLAGS

__all__ = ["fake_llm_fixture"]

#: A package manual's page of margin notes, each a box whose translation overprints the next
#: (corpus2 133 p8). 134 p5 served here until definition lists were read as such.
PAPER = "../corpus2/133_tex_todonotes_doc_margin_notes_p12of37.pdf"


@pytest.mark.corpus
def test_the_final_message_names_the_pages_and_blocks_kept_as_printed(
    settings: Settings, fake_llm: FakeVLLMProcess, corpus_cut: CorpusCut, tmp_path: Path
) -> None:
    pdf = corpus_cut(PAPER, [7]).read_bytes()
    built_in = {"llm_base_url": fake_llm.base_url, "font_dir": tmp_path / "no-fonts-here"}
    with run_app(settings.model_copy(update=built_in)) as srv, srv.client() as client:
        answer = client.post(
            "/translate", json=plugin_body(pdf, "p.pdf", dual="false", translateTableText="true")
        )
        assert answer.status_code == 200, answer.text
        (name,) = answer.json()["fileList"]
        mono = client.get(f"/translatedFile/{name}").content
        tasks = client.get("/api/tasks").json()
    items = tasks["tasks"] if isinstance(tasks, dict) else tasks
    message = str(max(items, key=lambda t: str(t["startTime"]))["message"])
    # Each kept as printed: left untranslated, or its translation set apart where it fits.
    found = re.findall(
        r"(?:kept as printed where the translation would not fit the page"
        r"|set apart from their source, where the page had room): (.*?)(?:;|$)",
        message,
    )
    assert found, message
    named = re.findall(r"p0-b\d+", " ".join(found))
    assert all(part.startswith("page 1 (") for part in found) and named
    # What it names is what the page shows: those blocks' source words where they were, and
    # no translated line over text on the page.
    paragraphs = extract_paragraphs(open_document(pdf))
    ids = {p.id for p in paragraphs}
    assert set(named) <= ids
    with pymupdf.open(stream=pdf) as source, pymupdf.open(stream=mono) as out:
        assert kept_as_printed(pdf, out[0], [p for p in paragraphs if p.id in named])
        texts = {p.id: "x" for p in paragraphs if p.id not in named}
        (page,) = audit_pages(
            source, out, [p for p in paragraphs if p.id in texts], texts, TEXT_FLAGS
        )
    assert page.counts["overprint"] == 0 and page.counts["left_under"] == 0

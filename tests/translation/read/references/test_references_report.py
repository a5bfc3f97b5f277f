"""Nothing is left untranslated silently: the pages kept as references are found on the corpus
papers as before, and the CLI summary and the job's final message name them."""

from __future__ import annotations

import time
from pathlib import Path

import pymupdf
import pytest

from tests.helpers.cli import env as env
from tests.helpers.cli import fake_vllm as fake_vllm
from tests.helpers.cli import run_cli
from tests.helpers.pdfgen.textbox import PARAGRAPHS, small_paper
from tests.helpers.server import RunningServer, plugin_body
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.paragraph import ParagraphKind
from translation.request import page_list

ENTRIES = [
    "Ann Lee and Bo Chen. 2019. A study of careful translation. In Proceedings of ACL.",
    "Cy Diaz, Dee Evans, and Eve Fox. 2020. Layouts of papers. Journal of Documents, 12(3):4-9.",
    "Fay Gray. 2021. Reading in a second language. arXiv preprint arXiv:2101.00001.",
    "Gus Hill and Ivy Jones. 2022. Keeping tables in place. In Proceedings of EMNLP.",
]


def bibliography_paper(path: Path) -> Path:
    """Two pages written to ``path``: body paragraphs, then a bibliography of four author-year
    entries."""
    path.write_bytes(small_paper(paragraphs=PARAGRAPHS, references=ENTRIES))
    return path


@pytest.mark.parametrize(
    ("pages", "said"),
    [((8, 9, 10), "pages 9-11"), ((3,), "page 4"), ((1, 4, 5), "pages 2, 5-6")],
)
def test_pages_are_said_as_a_reader_counts_them(pages: tuple[int, ...], said: str) -> None:
    assert page_list(pages) == said


# What today's detection finds in the corpus (0-based pages, reference paragraphs with the
# heading), checked by eye against each paper: every bibliography, and nothing else.
CORPUS = {
    "01_acl2020_specter_2col_math.pdf": ((8, 9, 10), 59),
    "02_naacl2018_s2_literature_graph_2col_short.pdf": ((7,), 28),
    "03_eacl2023_longeval_2col_many_tables.pdf": ((9, 10, 11, 12, 13), 69),
    "04_arxiv2203.00274_tableformer_2col_math_tables.pdf": ((8, 9), 23),
    # 05: the bottom-band line "cessed April 17, 2022." is read and ends entry [13] ("Last ac-"
    # above it), one paragraph with it (it was a piece of its own: 67).
    "05_arxiv2206.10883_multilexsum_1col_preprint_37p.pdf": ((9, 10, 11, 12, 13, 14), 66),
    "07_iop_jpcs2022_semeagat_1col_word_math.pdf": ((9, 10, 11), 46),
}


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_bibliographies_are_still_kept(corpus_dir: Path, name: str) -> None:
    pages, count = CORPUS[name]
    seg = extract_document(open_document((corpus_dir / name).read_bytes()), None, True)
    refs = [p for p in seg.paragraphs if p.kind == ParagraphKind.REFERENCE]
    assert seg.reference_pages == pages
    assert len(refs) == count
    assert refs[0].text == "References" and refs[0].page == pages[0]
    assert {p.page for p in refs} == set(pages)


@pytest.mark.slow
def test_cli_summary_names_the_pages_kept(tmp_path: Path, env: dict[str, str]) -> None:
    paper = bibliography_paper(tmp_path / "paper.pdf")
    result = run_cli(["translate", str(paper), "--no-dual"], env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "references kept as they are: page 2" in result.stderr
    with pymupdf.open(tmp_path / "paper-mono.pdf") as mono:
        text = " ".join(mono[1].get_text().split())
    assert all(" ".join(entry.split()) in text for entry in ENTRIES)

    included = run_cli(
        ["translate", str(paper), "--no-dual", "--include-references"], env, tmp_path
    )
    assert included.returncode == 0, included.stderr
    assert "references kept" not in included.stderr
    with pymupdf.open(tmp_path / "paper-mono.pdf") as mono:
        assert ENTRIES[0] not in " ".join(mono[1].get_text().split())


def test_the_jobs_final_message_names_the_pages_kept(srv: RunningServer, tmp_path: Path) -> None:
    pdf = bibliography_paper(tmp_path / "paper.pdf").read_bytes()
    body = plugin_body(pdf, "paper.pdf", asyncJob=True, dual="false")
    with srv.client(headers={"X-PDF2zh-Protocol": "accepted"}) as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        task_id = answer.json()["taskId"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            (task,) = [
                t for t in client.get("/api/tasks").json()["tasks"] if t["taskId"] == task_id
            ]
            if task["finished"]:
                break
            time.sleep(0.05)
    assert task["result"]["status"] == "success", task
    message = task["message"]  # then the face the translation was set in
    assert message.startswith("done: 1 file; references kept as they are: page 2; set in ")


@pytest.mark.slow
@pytest.mark.corpus
def test_a_page_range_ending_where_the_bibliography_starts_keeps_it(corpus_dir: Path) -> None:
    """Page 10 of LongEval holds the end of the body and the first entries: read alone (with
    the pages before it and a little after), it comes out as in the whole paper."""
    data = (corpus_dir / "03_eacl2023_longeval_2col_many_tables.pdf").read_bytes()
    whole = extract_document(open_document(data))
    alone = extract_document(open_document(data), [9])
    assert alone.reference_pages == (9,)
    assert [p.text for p in alone.paragraphs] == [p.text for p in whole.paragraphs if p.page == 9]

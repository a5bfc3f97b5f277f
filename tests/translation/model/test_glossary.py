"""The glossary (issue 14): CSV parsing, matching, placeholders and their restoring, the cache
key, and corpus 02 through the real server and the fake vLLM, whose request log shows what the
model was sent."""

from __future__ import annotations

import base64
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pymupdf
import pytest

from common.errors import ConfigError, InputError
from common.language import Language
from common.settings import Settings
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.browser import BROWSER_MARKS, launch
from tests.helpers.pdfgen import make_paper
from tests.helpers.server import plugin_body, run_app
from tests.helpers.vllm import FakeVLLMFactory
from translation.model.glossary import (
    MAX_ENTRIES,
    Entry,
    Glossary,
    combine,
    only_terms,
    particles_agree,
)
from translation.read.math.formulas import restore
from translation.read.paragraph import Paragraph
from zotero_server.protocol import Operation, PluginRequest, parse_request

EN, KO = Language.parse("en"), Language.parse("ko")

KO_TERMS = "source,target\nSemantic Scholar,시맨틱 스칼라\nliterature graph,문헌 그래프\n"


def protect(glossary: Glossary, text: str, src: str = "en", tgt: str = "ko") -> str:
    return glossary.matcher(Language.parse(src), Language.parse(tgt)).protect(text)[0]


def paragraph(text: str, placeholders: dict[str, str] | None = None) -> Paragraph:
    return Paragraph("p0-b1", 0, text, placeholders or {}, (0, 0, 100, 20), (), 10.0)


# --- the file --------------------------------------------------------------------------------


def test_header_bom_quotes_comments_and_blank_lines() -> None:
    text = (
        "\ufeffSource,Target\n"
        "# house terms\n"
        "\n"
        '"graph, property","속성 그래프"\n'
        '"the ""best"" model",최고 모델\n'
        "  BERT  ,  버트  \n"
    )
    glossary = Glossary.parse(text)
    assert glossary.entries == (
        Entry("graph, property", "속성 그래프"),
        Entry('the "best" model', "최고 모델"),
        Entry("BERT", "버트"),
    )


def test_a_first_row_that_is_data_is_an_entry() -> None:
    assert Glossary.parse("Transformer,트랜스포머\n").entries == (
        Entry("Transformer", "트랜스포머"),
    )


def test_language_column_keeps_the_rows_for_the_jobs_target() -> None:
    glossary = Glossary.parse(
        "source,target,language\n"
        "graph,그래프,ko\n"
        "graph,グラフ,ja\n"
        "node,노드,ko-KR\n"
        "BERT,BERT\n"  # every target
    )
    assert protect(glossary, "a graph node of BERT", tgt="ja") == "a {v1001} node of {v1002}"
    to_ko = glossary.matcher(EN, KO)
    text, terms = to_ko.protect("a graph node of BERT")
    assert text == "a {v1001} {v1002} of {v1003}"
    assert terms == {"{v1001}": "그래프", "{v1002}": "노드", "{v1003}": "BERT"}
    assert protect(glossary, "a graph node", tgt="de") == "a graph node"


def test_a_row_for_the_target_beats_a_row_for_every_target() -> None:
    glossary = Glossary.parse("graph,Graph\ngraph,그래프,ko\n")
    assert glossary.matcher(EN, KO).protect("graph")[1] == {"{v1001}": "그래프"}
    assert glossary.matcher(Language.parse("en"), Language.parse("de")).protect("graph")[1] == {
        "{v1001}": "Graph"
    }


def test_a_pdf2zh_next_glossary_reads_as_it_is() -> None:
    glossary = Glossary.parse("source,target,tgt_lng\ngraph,그래프,ko\nedge,边,zh-CN\n")
    assert glossary.entries == (
        Entry("graph", "그래프", Language.parse("ko")),
        Entry("edge", "边", Language.parse("zh-Hans")),
    )


def test_a_header_of_language_codes_names_the_target_of_its_rows() -> None:
    glossary = Glossary.parse("en,ko\ngraph,그래프\n")
    assert glossary.entries == (Entry("graph", "그래프", Language.parse("ko")),)
    assert protect(glossary, "graph", tgt="ja") == "graph"


def test_tab_separated() -> None:
    assert Glossary.parse("graph\t그래프\n").entries == (Entry("graph", "그래프"),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("source,target\ngraph,그래프\nnode\n", "line 3: expected source,target"),
        ("graph,그래프\nnode,,\n", "line 2: the target term is empty"),
        ("graph,그래프,ko,extra\n", "line 1: expected source,target[,language], found 4"),
        ("graph,그래프,klingon\n", "line 1: unsupported language 'klingon'"),
        ("graph,그래프\nGraph,도표\n", "line 2: 'Graph' is already on line 1"),
        ("'x',그래프\n{v1},y\n", "line 2: the source term '{v1}' may not hold braces"),
        ("--,dash\n", "line 1: the source term '--' has no letter or digit"),
        ('a,"b\nc"\nd,"e\n', "glossary, line"),
        ("graph," + "x" * 201 + "\n", "longer than 200"),
    ],
)
def test_a_bad_file_names_its_line(text: str, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        Glossary.parse(text)


def test_a_quoted_term_across_lines_counts_from_its_first_line() -> None:
    with pytest.raises(InputError, match="line 2: expected source,target"):
        Glossary.parse('a,b\n"two\nlines"\n')
    with pytest.raises(InputError, match="line 4: expected source,target"):
        Glossary.parse('a,b\n"two\nlines",x\nalone\n')


def test_limits_on_size_entries_and_encoding(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="more than 5000 entries"):
        Glossary.parse("".join(f"term{i},t{i}\n" for i in range(MAX_ENTRIES + 1)))
    with pytest.raises(InputError, match="at most 100 are accepted"):
        Glossary.from_bytes(b"a,b\n" * 30, limit=100)
    with pytest.raises(InputError, match="line 2: not UTF-8"):
        Glossary.from_bytes(b"a,b\n" + "c,\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="cannot read the glossary"):
        Glossary.load(tmp_path / "missing.csv")
    same = tmp_path / "same.csv"
    same.write_text("graph,그래프\ngraph,그래프\n", encoding="utf-8")
    assert len(Glossary.load(same)) == 1  # the same row twice is one entry


# --- matching --------------------------------------------------------------------------------


def test_case_insensitive_on_word_boundaries() -> None:
    glossary = Glossary.parse("graph,그래프\nBERT,버트\n")
    assert protect(glossary, "Graph, GRAPH and graph.") == "{v1001}, {v1001} and {v1001}."
    assert protect(glossary, "subgraph graphical graph-based") == "subgraph graphical {v1001}-based"
    assert (
        protect(glossary, "RoBERTa and BERTology but BERT") == "RoBERTa and BERTology but {v1002}"
    )


def test_an_acronym_matches_as_written_not_the_word_it_spells() -> None:
    glossary = Glossary.parse("MAP,평균 정밀도\nmap projection,지도 투영\nIT,정보기술\n")
    text = "the MAP of a map, a MAP projection; it is IT, LLMs and ITs"
    assert protect(glossary, text) == (
        "the {v1001} of a map, a {v1002}; it is {v1003}, LLMs and {v1003}"
    )


def test_longest_term_first() -> None:
    glossary = Glossary.parse("graph,그래프\nliterature graph,문헌 그래프\nliterature,문헌\n")
    text, terms = glossary.matcher(EN, KO).protect("the literature graph of the literature")
    assert text == "the {v1002} of the {v1003}"
    assert terms == {"{v1002}": "문헌 그래프", "{v1003}": "문헌"}


def test_a_term_matches_across_any_whitespace() -> None:
    glossary = Glossary.parse("Semantic Scholar,시맨틱 스칼라\n")
    assert protect(glossary, "in Semantic\u00a0 scholar") == "in {v1001}"


def test_english_plurals_and_possessives() -> None:
    glossary = Glossary.parse("graph,그래프\nclass,클래스\nontology,온톨로지\nday,날\n")
    assert protect(glossary, "graphs, classes, ontologies, days") == (
        "{v1001}, {v1002}, {v1003}, {v1004}"
    )
    # The possessive stays in the text, for the model to translate.
    assert protect(glossary, "the graph's nodes, the graphs' edges, the graph’s") == (
        "the {v1001}'s nodes, the {v1001}' edges, the {v1001}’s"
    )
    assert protect(glossary, "graphss classy") == "graphss classy"
    # Only from English.
    assert protect(glossary, "graphs", src="de") == "graphs"


def test_cjk_sources_need_no_word_boundaries() -> None:
    glossary = Glossary.parse("知识图谱,knowledge graph\n그래프,graph\nBERT,BERT-model\n")
    assert protect(glossary, "我们的知识图谱很大", src="zh", tgt="en") == "我们的{v1001}很大"
    # A Latin term glued to Hangul is a word; inside a Latin word it is not.
    assert protect(glossary, "BERT를 쓴 그래프는 ABERT", src="ko", tgt="en") == (
        "{v1003}를 쓴 {v1002}는 ABERT"
    )


def test_formula_placeholders_are_left_alone() -> None:
    glossary = Glossary.parse("v1,vee one\nmodel,모델\n")
    text, terms = glossary.matcher(EN, KO).protect("a {v1} model v1")
    assert text == "a {v1} {v1002} {v1001}"
    assert terms == {"{v1002}": "모델", "{v1001}": "vee one"}


# --- restoring -------------------------------------------------------------------------------


def test_the_target_term_comes_back_as_text_beside_the_formulas() -> None:
    glossary = Glossary.parse(KO_TERMS)
    source = paragraph("The literature graph has {v1} nodes.", {"{v1}": "10⁶"})
    [protected] = glossary.apply([source], EN, KO)
    assert protected.text == "The {v1002} has {v1} nodes."
    assert protected.placeholders == {"{v1}": "10⁶", "{v1002}": "문헌 그래프"}
    translated = restore(pseudo_translate(protected.text, "ko"), protected)
    assert "문헌 그래프" in translated and "10⁶" in translated and "{v" not in translated
    # What models make of a placeholder, and a term the model dropped (appended, not lost).
    assert restore("그 { V1002 }는 {v1}개", protected) == "그 문헌 그래프는 10⁶개"
    assert restore("그것은 {v1}개", protected) == "그것은 10⁶개 문헌 그래프"


def test_korean_particles_agree_with_the_term_the_model_never_saw() -> None:
    glossary = Glossary.parse("literature graph,문헌 그래프\nlearning,학습\nSeoul,서울\n")
    [protected] = glossary.apply(
        [paragraph("The literature graph, learning and Seoul.")],
        Language.parse("en"),
        Language.parse("ko"),
    )
    # What a model writes after a placeholder it cannot read: particles chosen blind.
    answer = "{v1001}은 {v1002}를 {v1003}으로 잇고, {v1001}이다. {v1002}는 {v1002}로서."
    restored = glossary.restore(restore(answer, protected), protected, Language.parse("ko"))
    assert restored == "문헌 그래프는 학습을 서울로 잇고, 문헌 그래프이다. 학습은 학습으로서."
    # Only Korean has them; a term that is not Hangul is left as the model wrote it.
    assert glossary.restore("문헌 그래프은", protected, Language.parse("ja")) == "문헌 그래프은"
    assert particles_agree("BERT은 좋다", ["BERT"]) == "BERT은 좋다"


def test_a_paragraph_without_a_term_is_untouched() -> None:
    source = paragraph("Nothing to see here.")
    assert Glossary.parse(KO_TERMS).apply([source], EN, KO)[0] is source


# --- the cache key ---------------------------------------------------------------------------


def test_the_key_covers_the_terms_of_the_text_and_only_those() -> None:
    old = Glossary.parse(KO_TERMS)
    new = Glossary.parse(KO_TERMS.replace("문헌 그래프", "학술 그래프"))
    plain = "Nothing to see here."
    assert old.key_text(plain, EN, KO) == plain  # the same key as without a glossary
    both = protect(old, "Semantic Scholar and its literature graph")
    only_first = protect(old, "Semantic Scholar alone")
    assert old.key_text(both, EN, KO) != new.key_text(both, EN, KO)
    assert old.key_text(only_first, EN, KO) == new.key_text(only_first, EN, KO)
    assert "시맨틱 스칼라" in old.key_text(only_first, EN, KO)


def test_only_terms() -> None:
    assert only_terms("{v1001}") and only_terms("{v1001} {v1} (2)")
    assert not only_terms("{v1001} model") and not only_terms("{v1} {v2}")


async def test_a_cell_of_terms_only_is_not_sent(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory
) -> None:
    from tests.helpers.translator import translator_for
    from translation.request import TranslationRequest

    fake = fake_vllm_factory.start()
    paper = make_paper(pages=2)[0]
    glossary = Glossary.parse("Bravo,브라보\nAlpha,Alpha\n")
    translator = translator_for(settings, fake.base_url)
    try:
        result = await translator.translate(
            TranslationRequest(
                pdf=paper,
                source_lang=Language.parse("en"),
                target_lang=Language.parse("ko"),
                glossary=glossary,
            )
        )
    finally:
        await translator.aclose()
    sent = fake.texts()
    assert sent and "{v1001}" not in sent and "{v1002}" not in sent
    assert not [text for text in sent if re.search("alpha|bravo", text, re.I)]
    assert result.mono is not None
    with pymupdf.open(stream=result.mono) as doc:
        cells = [w[4] for w in doc[0].get_text("words")]
    assert "브라보" in cells and "Alpha" in cells


# --- server and request glossaries -----------------------------------------------------------


def test_a_requests_rows_replace_the_servers_for_the_same_term() -> None:
    server = Glossary.parse("graph,그래프,ko\ngraph,グラフ,ja\nnode,노드\n")
    request = Glossary.parse("Graph,도표,ko\nedge,간선\n")
    merged = combine(server, request)
    assert merged is not None
    # In the replaced row's place: the rows after it keep their placeholders (and cache keys).
    assert merged.entries == (
        Entry("Graph", "도표", Language.parse("ko")),
        Entry("graph", "グラフ", Language.parse("ja")),
        Entry("node", "노드"),
        Entry("edge", "간선"),
    )
    # A row for every language replaces the server's rows for every language.
    everywhere = combine(server, Glossary.parse("graph,G\n"))
    assert everywhere is not None
    assert [e.target for e in everywhere.entries] == ["G", "노드"]
    assert combine(None, request) is request and combine(server, None) is server


def test_the_request_field_is_parsed_and_bounded() -> None:
    pdf = make_paper(pages=2)[0]

    def parse(**fields: str) -> PluginRequest:
        body = plugin_body(pdf, "p.pdf", **fields)
        return parse_request(
            Operation.TRANSLATE,
            body,
            {},
            default_source=Language.parse("en"),
            default_target=Language.parse("ko"),
            max_bytes=10**8,
        )

    request = parse(glossary="graph,그래프\n")
    assert request.glossary is not None
    assert request.glossary.entries == (Entry("graph", "그래프"),)
    assert parse(glossary="  ").glossary is None
    # The upload form's way: the file as a data URL, BOM and all.
    data_url = "data:text/csv;base64," + base64.b64encode("\ufeffgraph,그래프\n".encode()).decode()
    from_form = parse(glossary=data_url).glossary
    assert from_form is not None and from_form.entries == (Entry("graph", "그래프"),)
    with pytest.raises(InputError, match="not valid base64"):
        parse(glossary="data:text/csv;base64,!!!")
    with pytest.raises(InputError, match="glossary, line 1: expected source,target"):
        parse(glossary="graph\n")
    with pytest.raises(InputError, match="a request may carry at most 65,536"):
        parse(glossary="graph,그래프\n" * 5000)

    # A job resumed after a restart translates with the same terms (the job store's record).
    kept = PluginRequest.from_record(request.to_record()).glossary
    assert kept is not None and kept.entries == request.glossary.entries
    assert PluginRequest.from_record(parse().to_record()).glossary is None


def test_a_bad_server_glossary_stops_the_start(
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import uvicorn

    from zotero_server.app import create_app
    from zotero_server.cli import main

    bad = tmp_path / "bad.csv"
    bad.write_text("graph,그래프\nnode\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ZT_GLOSSARY: .*bad\.csv, line 2"):
        create_app(settings.model_copy(update={"glossary": bad}))

    def serve(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server started with a bad glossary")

    monkeypatch.setattr(uvicorn, "run", serve)
    monkeypatch.setenv("ZT_GLOSSARY", str(tmp_path / "missing.csv"))
    assert main(["serve"]) == 2
    assert "ZT_GLOSSARY: cannot read the glossary" in capsys.readouterr().err


def test_translate_command_refuses_a_bad_glossary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from zotero_server.cli import main

    paper = tmp_path / "p.pdf"
    paper.write_bytes(make_paper(pages=2)[0])
    bad = tmp_path / "g.csv"
    bad.write_text("a,b,c,d\n", encoding="utf-8")
    assert main(["translate", str(paper), "--glossary", str(bad)]) == 2
    assert "g.csv, line 1" in capsys.readouterr().err
    assert not (tmp_path / "p-mono.pdf").exists()


# --- acceptance: corpus 02, through the server -----------------------------------------------

TERMS_RE = re.compile(r"semantic\s+scholar|literature\s+graph", re.IGNORECASE)


def _translate(settings: Settings, pdf: bytes, **fields: str) -> bytes:
    with run_app(settings) as srv, srv.client() as client:
        answer = client.post("/translate", json=plugin_body(pdf, "p.pdf", dual="false", **fields))
        assert answer.status_code == 200, answer.text
        [name] = answer.json()["fileList"]
        return client.get(f"/translatedFile/{name}").content


def _squeezed(page: pymupdf.Page) -> str:
    return re.sub(r"\s+", "", page.get_text())


@pytest.mark.corpus
def test_corpus_02_keeps_the_glossary_after_a_run_without_it(
    corpus_dir: Path, settings: Settings, tmp_path: Path
) -> None:
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs

    pdf = (corpus_dir / "02_naacl2018_s2_literature_graph_2col_short.pdf").read_bytes()
    glossary = tmp_path / "glossary.csv"
    glossary.write_text(KO_TERMS, encoding="utf-8")
    # Where the English terms stand in the text the engine translates, page by page.
    expected: dict[int, Counter[str]] = {}
    for para in extract_paragraphs(open_document(pdf)):
        for match in TERMS_RE.finditer(para.text):
            expected.setdefault(para.page, Counter())[match.group(0).split()[0].lower()] += 1
    assert sum(c["semantic"] for c in expected.values()) >= 1
    assert sum(c["literature"] for c in expected.values()) >= 10

    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start()
        plain = settings.model_copy(update={"llm_base_url": fake.base_url})
        _translate(plain, pdf)
        first = [entry["text"] for entry in fake.requests(200)]
        mono = _translate(plain.model_copy(update={"glossary": glossary}), pdf)
        second = [entry["text"] for entry in fake.requests(200)][len(first) :]

    # The model never saw the English terms, and only the paragraphs holding them went again
    # (the rest came from the cache the first run filled), each once, with the placeholders.
    assert second and not [text for text in second if TERMS_RE.search(text)]
    touched = {text for text in first if TERMS_RE.search(text)}
    resent = {
        re.sub(
            r"(?i)literature\s+graphs?\b",
            "{v1002}",
            re.sub(r"(?i)semantic\s+scholar", "{v1001}", t),
        )
        for t in touched
    }
    assert sorted(second) == sorted(resent)

    with pymupdf.open(stream=mono, filetype="pdf") as doc:
        for number, page in enumerate(doc):
            text = _squeezed(page)
            counts = expected.get(number, Counter())
            assert text.count("시맨틱스칼라") == counts["semantic"], f"page {number + 1}"
            assert text.count("문헌그래프") == counts["literature"], f"page {number + 1}"
            assert not TERMS_RE.search(page.get_text()), f"page {number + 1}"


def test_translate_command_with_a_glossary(
    fake_vllm_factory: FakeVLLMFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zotero_server.cli import main

    fake = fake_vllm_factory.start()
    monkeypatch.setenv("ZT_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("ZT_DATA_DIR", str(tmp_path / "data"))
    paper = tmp_path / "p.pdf"
    paper.write_bytes(make_paper(pages=2)[0])
    glossary = tmp_path / "g.csv"
    glossary.write_text("Careful Evaluation,신중한 평가\n", encoding="utf-8")
    assert main(["translate", str(paper), "--glossary", str(glossary), "--no-dual"]) == 0
    assert not [e for e in fake.requests() if "careful evaluation" in e["text"].lower()]
    with pymupdf.open(tmp_path / "p-mono.pdf") as doc:
        assert "신중한평가" in _squeezed(doc[0])


# --- the upload form -------------------------------------------------------------------------


def browser_test(test: Callable[..., None]) -> Callable[..., None]:
    """A test that drives headless Chromium (marked, skipped without it)."""
    for mark in BROWSER_MARKS:
        test = mark(test)
    return test


@browser_test
def test_the_upload_form_sends_a_glossary_on_top_of_the_servers(
    settings: Settings, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    paper = tmp_path / "paper.pdf"
    paper.write_bytes(make_paper(pages=2)[0])
    server_terms = tmp_path / "server.csv"
    server_terms.write_text("Synthetic Study,합성 연구\nCareful Evaluation,평가\n", "utf-8")
    glossary = tmp_path / "terms.csv"
    glossary.write_text("source,target\nCareful Evaluation,신중한 평가\n", encoding="utf-8")
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start()
        configured = settings.model_copy(
            update={"llm_base_url": fake.base_url, "glossary": server_terms}
        )
        with run_app(configured) as srv, sync_playwright() as pw:
            browser = launch(pw)
            try:
                page = browser.new_page()
                page.goto(srv.url + "/")
                expect(page.locator("#live")).to_have_text("live")
                expect(page.locator("#glossary-note")).to_contain_text("glossary (2 terms)")
                page.set_input_files("#file", str(paper))
                page.set_input_files("#glossary", str(glossary))
                page.click("#submit")
                link = page.locator("li.job .files a", has_text="paper-mono.pdf")
                expect(link).to_be_visible(timeout=60_000)
                # The form is ready for the next paper, with the same glossary.
                assert page.eval_on_selector("#file", "e => e.files.length") == 0
                assert page.eval_on_selector("#glossary", "e => e.files[0].name") == "terms.csv"
            finally:
                browser.close()
            mono = httpx.get(srv.url + "/translatedFile/paper-mono.pdf", timeout=30).content
        sent = [entry["text"] for entry in fake.requests(200)]
    assert sent and not [
        t for t in sent if re.search("careful evaluation|synthetic study", t, re.I)
    ]
    with pymupdf.open(stream=mono, filetype="pdf") as doc:
        title = _squeezed(doc[0])
    # The request's row replaced the server's for the same term; the server's other row stays.
    assert "신중한평가" in title and "합성연구" in title

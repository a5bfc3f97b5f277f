"""Bugs found by using the product end to end (real server on loopback, real fake vLLM)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from common.settings import Settings
from tests.helpers.browser import BROWSER_MARKS, launch
from tests.helpers.pdfgen import make_paper
from tests.helpers.server import RunningServer, plugin_body, run_app
from tests.helpers.vllm import FakeVLLMFactory

TOKEN = "qa-secret"


@pytest.fixture
def token_srv(settings: Settings, tmp_path: Path) -> Iterator[RunningServer]:
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start()
        configured = settings.model_copy(
            update={"llm_base_url": fake.base_url, "api_token": SecretStr(TOKEN)}
        )
        with run_app(configured) as running:
            yield running


def browser_test(test: Callable[..., None]) -> Callable[..., None]:
    """A test that drives headless Chromium (marked, skipped without it)."""
    for mark in BROWSER_MARKS:
        test = mark(test)
    return test


@browser_test
def test_page_opened_at_the_token_path_uses_that_token(token_srv: RunningServer) -> None:
    """docs/api.md: give the plugin ``http://HOST:8890/t/<token>``; the same address in a browser
    served the page, but its event stream and polls went to ``/events`` without the token (401)
    and the page asked for a token it had just been given in its own URL."""
    from playwright.sync_api import expect, sync_playwright

    with token_srv.client(headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        answer = client.post("/translate", json=plugin_body(make_paper()[0], "p.pdf", dual="false"))
        assert answer.status_code == 200, answer.text

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page()
            refused: list[str] = []
            page.on("response", lambda r: refused.append(r.url) if r.status == 401 else None)
            page.goto(f"{token_srv.url}/t/{TOKEN}/")
            expect(page.locator("#live")).to_have_text("live")
            expect(page.locator("#token-box")).to_be_hidden()
            link = page.locator("li.job .files a")
            expect(link).to_have_text("p-mono.pdf")
            with page.expect_download() as download_info:
                link.click()
            assert Path(download_info.value.path()).read_bytes().startswith(b"%PDF")
            assert refused == []
        finally:
            browser.close()


@pytest.mark.corpus
def test_korean_words_with_footnote_marks_are_translated(corpus_dir: Path) -> None:
    """09 p1 (ko -> en): "상해1)나 재해2)로" (footnote marks 1) and 2) raised) went to the
    PDF untranslated: one or two Hangul syllables glued to a raised mark were taken for a
    variable name, so the words between the marks became part of one formula."""
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs

    data = (corpus_dir / "09_ko_nars_issue_brief_2020_korean.pdf").read_bytes()
    paragraphs = extract_paragraphs(open_document(data), pages=[0])
    (para,) = [p for p in paragraphs if "코로나-19를 과연" in p.text]
    assert "상해" in para.text and "재해" in para.text
    assert sorted(para.placeholders.values()) == ["1)", "2)"]

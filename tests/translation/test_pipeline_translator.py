"""The Translator against the fake vLLM: pages are typeset while others still translate, the
cache short-cuts everything, and a failed LLM leaves nothing half-written."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from pathlib import Path

import httpx
import pymupdf
import pytest

from common.errors import LLMError, LLMUnavailableError
from common.language import Language
from common.progress import Progress, Stage
from common.settings import Settings
from tests.helpers.cli import found_share
from tests.helpers.pdfgen.textbox import paragraph, rising_paper, small_paper
from tests.helpers.translator import translator_for
from tests.helpers.vllm import FakeVLLMFactory
from translation.render.preview import PageImages
from translation.request import TranslationRequest

GUARD_S = 60.0  # far more than the test takes; reached only when pages wait for the end


class FirstTypeset:
    """A page watch that sets :attr:`seen` as the first page is typeset."""

    def __init__(self) -> None:
        self.seen = asyncio.Event()

    def begin(self, pages: Sequence[int], images: PageImages) -> None:
        pass

    def thumbnail_width(self) -> int:
        return 0

    def typesetting(self, number: int) -> None:
        pass

    def typeset(self, number: int, thumbnail: bytes | None) -> None:
        self.seen.set()

    def end(self, failed: bool) -> None:
        pass


async def test_pages_are_typeset_while_others_translate(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory, tmp_path: Path
) -> None:
    # 5 pages of 3 paragraphs: once 11 are answered, some page has all of its own (at most 2
    # of each page's otherwise). The last 4 are held until a page is typeset, so the overlap
    # does not depend on how fast this machine typesets.
    fake = fake_vllm_factory.start("--fake-latency-ms", "40", "--fake-hold-after", "11")
    paper = small_paper(pages=5)
    translator = translator_for(settings, fake.base_url)
    events: list[Progress] = []
    watch = FirstTypeset()

    async def release_once_typeset() -> None:
        await watch.seen.wait()
        async with httpx.AsyncClient() as client:
            (await client.post(f"{fake.root_url}/fake/release")).raise_for_status()

    release = asyncio.create_task(release_once_typeset())
    try:
        request = TranslationRequest(
            pdf=paper,
            source_lang=Language.parse("en"),
            target_lang=Language.parse("ko"),
            dual=False,
        )
        # Pages typeset only at the end would never release the held answers.
        translating = translator.translate(request, events.append, watch=watch)
        result = await asyncio.wait_for(translating, GUARD_S)
        await release
    finally:
        release.cancel()
        await translator.aclose()

    assert result.pages_rendered_early >= 1
    assert result.llm_calls == 15 and result.dual is None
    assert [e.stage for e in events][-1] is Stage.RENDERING
    assert result.mono is not None
    with pymupdf.open(stream=result.mono) as doc:
        assert doc.page_count == 5
        for page_no in range(5):
            text = " ".join(doc[page_no].get_text().split())
            for index in range(3):
                assert found_share(text, paragraph(page_no, index)) >= 0.9


async def test_a_paper_is_sent_page_by_page(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory
) -> None:
    """Origin: issue 38 (longest first sent every page's short paragraphs last, so nearly every
    page was typeset after the last answer: seconds of tail on a 51-page paper)."""
    # Pages 1-2 of short paragraphs, page 3 of long ones; one request at a time, so the fake
    # sees them in the order they were sent.
    fake = fake_vllm_factory.start()
    request = TranslationRequest(
        pdf=rising_paper(pages=3),
        source_lang=Language.parse("en"),
        target_lang=Language.parse("ko"),
        dual=False,
    )
    translator = translator_for(settings, fake.base_url, concurrency=1)
    try:
        result = await translator.translate(request)
    finally:
        await translator.aclose()
    pages = [
        1 if "setting 1." in text else 2 if "setting 2." in text else 3 for text in fake.texts()
    ]
    assert pages == sorted(pages) and pages.count(3) == 3, pages
    assert result.mono is not None
    with pymupdf.open(stream=result.mono) as mono:
        assert "setting 2.5 are listed" not in mono[1].get_text()  # translated
        assert "Paragraph 3.3 ends here" not in mono[2].get_text()


async def test_second_run_is_all_cache_and_same_output(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory, tmp_path: Path
) -> None:
    fake = fake_vllm_factory.start()
    paper = small_paper(pages=2)
    request = TranslationRequest(
        pdf=paper, source_lang=Language.parse("en"), target_lang=Language.parse("ko")
    )
    translator = translator_for(settings, fake.base_url)
    try:
        first = await translator.translate(request)
        calls = len(fake.texts())
        second = await translator.translate(request)
    finally:
        await translator.aclose()
    assert second.llm_calls == 0 and len(fake.texts()) == calls
    assert first.mono is not None and second.mono is not None
    with pymupdf.open(stream=first.mono) as a, pymupdf.open(stream=second.mono) as b:
        assert a[0].get_text() == b[0].get_text()


async def test_a_paper_read_again_with_every_answer_cached_never_brings_the_llm_up(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory
) -> None:
    """Origin: issue 38 (a paper read afresh hands its first page on early, and the early
    requests asked for the LLM before looking in the cache: a paper translated before, its
    reading no longer kept, started vLLM for nothing)."""
    fake = fake_vllm_factory.start()
    paper = small_paper(pages=3)
    request = TranslationRequest(
        pdf=paper, source_lang=Language.parse("en"), target_lang=Language.parse("ko")
    )
    brought_up: list[str] = []

    async def down(_: object) -> None:
        brought_up.append("ensure_ready")
        raise LLMUnavailableError("vLLM is down (this test's LLM must not be asked for)")

    translator = translator_for(settings, fake.base_url)
    try:
        first = await translator.translate(request)
        calls = len(fake.texts())
        shutil.rmtree(settings.reading_cache_dir)  # read again: its first page goes early
        again = await translator.translate(request, ensure_ready=down)
    finally:
        await translator.aclose()
    assert first.llm_calls == calls > 0
    assert brought_up == [] and again.llm_calls == 0 and len(fake.texts()) == calls
    assert again.mono is not None
    with pymupdf.open(stream=again.mono) as doc:
        assert found_share(" ".join(doc[0].get_text().split()), paragraph(0, 0)) >= 0.9


async def test_llm_failure_fails_the_job_and_keeps_what_was_paid_for(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory, tmp_path: Path
) -> None:
    fake = fake_vllm_factory.start("--fake-fail-every", "4", "--fake-fail-status", "400")
    paper = small_paper(pages=3)
    translator = translator_for(settings, fake.base_url, concurrency=1)
    try:
        with pytest.raises(LLMError):
            await translator.translate(
                TranslationRequest(
                    pdf=paper, source_lang=Language.parse("en"), target_lang=Language.parse("ko")
                )
            )
        answered = fake.requests(status=200)
    finally:
        await translator.aclose()
    assert answered, "some paragraphs were translated before the failure"
    # Every answer that arrived is in the cache: a retry pays only for the rest.
    from translation.model.cache import TranslationCache

    with TranslationCache(settings.cache_path) as cache:
        assert cache.count() == len(answered)

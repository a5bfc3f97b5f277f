"""Scenario 7: vLLM killed mid-paper. The real pipeline, the real manager, a real fake vLLM.

The first vLLM the manager launches SIGKILLs itself after a few answers; the pipeline loses the
connection, calls ``ensure_ready`` again, the manager launches a second vLLM, and the paper
completes from the cache: every paragraph answered exactly once across both vLLMs.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from common.language import Language
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.manager import Recorder, Rig
from tests.helpers.pdfgen.textbox import PARAGRAPHS, paragraph, small_paper
from translation.pipeline import Translator
from translation.request import TranslationRequest
from zotero_server.manager_factory import create_manager

DIE_AFTER = 4


@pytest.fixture
def rig(tmp_path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.reap()


def answered_texts(log: Path) -> list[str]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [entry["text"] for entry in map(json.loads, lines) if entry["status"] == 200]


async def test_vllm_killed_mid_paper_restarts_once_and_nothing_is_paid_twice(rig) -> None:
    argv = rig.fake_vllm_argv(load_s=0.3)
    launches = shlex.quote(str(rig.launches))
    dying, healthy = shlex.join([*argv, "--fake-die-after", str(DIE_AFTER)]), shlex.join(argv)
    command = (
        f"echo launch >> {launches}; "
        f'if [ "$(wc -l < {launches})" -eq 1 ]; then exec {dying}; else exec {healthy}; fi'
    )
    # One request at a time: the fake dies right after an answer, never with one half-sent.
    settings = rig.settings(vllm_command=command, concurrency=1, llm_max_attempts=1)
    manager = create_manager(settings)
    translator = Translator.from_settings(settings, manager.ensure_ready)
    paper = small_paper(pages=3)  # three paragraphs a page, each its own
    progress = Recorder()
    try:
        async with manager.work():
            result = await asyncio.wait_for(
                translator.translate(
                    TranslationRequest(paper, Language.parse("en"), Language.parse("ko")), progress
                ),
                60,
            )
    finally:
        await translator.aclose()
        await manager.aclose()

    assert rig.launch_count() == 2, "restarted exactly once"
    assert "lost the LLM mid-paper; bringing it back" in progress.messages
    answered = answered_texts(rig.request_log)
    assert len(answered) == len(set(answered)) == result.paragraphs > DIE_AFTER
    assert result.llm_calls == result.paragraphs and result.cache_hits == 0
    assert result.mono is not None
    with pymupdf.open(stream=result.mono) as mono:
        last_page = "".join(mono[-1].get_text().split())  # a line set tight reads unspaced
    expected = pseudo_translate(paragraph(2, len(PARAGRAPHS) - 1), "ko")  # page 3's own
    assert "".join(expected.split()) in last_page, last_page

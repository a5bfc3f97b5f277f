"""`zotero-translate translate` end to end: a real process against the fake vLLM over loopback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from tests.conftest import CorpusCut
from tests.helpers.cli import env as env
from tests.helpers.cli import fake_vllm as fake_vllm
from tests.helpers.cli import found_share, page_text, requests_made, run_cli
from tests.helpers.net import free_port
from tests.helpers.pdfgen.textbox import PARAGRAPHS, paragraph, small_paper


def test_translate_writes_mono_and_dual(
    tmp_path: Path, env: dict[str, str], fake_vllm: tuple[str, Path]
) -> None:
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=2))
    out = tmp_path / "out"
    result = run_cli(["translate", str(paper), "--out", str(out)], env, tmp_path)
    assert result.returncode == 0, result.stderr
    mono, dual = out / "paper-mono.pdf", out / "paper-dual.pdf"
    assert result.stdout.split() == [str(mono), str(dual)]

    for page_no in range(2):
        text = page_text(mono, page_no)
        for index in range(len(PARAGRAPHS)):
            assert found_share(text, paragraph(page_no, index)) >= 0.9
        assert "Scientific papers are written" not in text  # redacted, not under a white box
    with pymupdf.open(paper) as src, pymupdf.open(mono) as m, pymupdf.open(dual) as d:
        assert m.page_count == src.page_count
        assert d.page_count == src.page_count
        assert d[0].rect.width == pytest.approx(2 * src[0].rect.width)
    assert len(requests_made(fake_vllm[1])) == 2 * len(PARAGRAPHS)


@pytest.mark.slow
def test_second_run_uses_the_cache_and_force_ignores_it(
    tmp_path: Path, env: dict[str, str], fake_vllm: tuple[str, Path]
) -> None:
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=1))
    assert run_cli(["translate", str(paper)], env, tmp_path).returncode == 0
    first = len(requests_made(fake_vllm[1]))
    assert first == len(PARAGRAPHS)

    again = run_cli(["translate", str(paper)], env, tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(requests_made(fake_vllm[1])) == first  # zero LLM calls
    assert "0 translated" in again.stderr

    forced = run_cli(["translate", str(paper), "--force"], env, tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert len(requests_made(fake_vllm[1])) == 2 * first


def test_a_cached_paper_imports_no_openai(
    tmp_path: Path, env: dict[str, str], fake_vllm: tuple[str, Path]
) -> None:
    """Origin: issue 38 (the CLI imported the openai package, half a second of CPU, in every
    run, a cached paper's too)."""
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=1))
    timed = {**env, "PYTHONPROFILEIMPORTTIME": "1"}  # every process's imports, on stderr
    openai = re.compile(r"\|\s*openai$", re.MULTILINE)

    first = run_cli(["translate", str(paper)], timed, tmp_path)
    assert first.returncode == 0, first.stderr
    assert len(requests_made(fake_vllm[1])) == len(PARAGRAPHS)
    assert openai.search(first.stderr)  # a run that sends requests imports it

    again = run_cli(["translate", str(paper)], timed, tmp_path)
    assert again.returncode == 0, again.stderr
    assert "0 translated" in again.stderr
    assert not openai.search(again.stderr)
    assert found_share(page_text(tmp_path / "paper-mono.pdf"), paragraph(0, 0)) >= 0.9


def test_pages_and_no_dual(tmp_path: Path, env: dict[str, str]) -> None:
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=3))
    result = run_cli(["translate", str(paper), "--pages", "2", "--no-dual"], env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "on 1 of 3 pages" in result.stderr
    assert not (tmp_path / "paper-dual.pdf").exists()
    mono = tmp_path / "paper-mono.pdf"
    assert "Scientific papers are written" in page_text(mono, 0)  # page 1 untouched
    assert "Scientific papers are written" not in page_text(mono, 1)
    assert found_share(page_text(mono, 1), paragraph(1, 0)) >= 0.9
    assert "Scientific papers are written" in page_text(mono, 2)


def test_llm_down_fails_with_one_line(tmp_path: Path) -> None:
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=1))
    env = {
        "ZT_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
        "ZT_DATA_DIR": str(tmp_path / "data"),
        "ZT_MANAGER": "none",
    }
    result = run_cli(["translate", str(paper)], env, tmp_path)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert "not answering" in lines[-1]
    assert not (tmp_path / "paper-mono.pdf").exists()


BAD_INPUTS = [
    ("15_malformed_not_a_pdf_header_eof.pdf", [], "not a readable PDF"),
    ("14_malformed_truncated_naacl2018_s2_literature_graph.pdf", [], "no pages"),
    ("11_encrypted_userpw_1234_kdd2022_doclaynet_p3.pdf", [], "password"),
    ("11_encrypted_userpw_1234_kdd2022_doclaynet_p3.pdf", ["--password", "nope"], "password"),
    ("10_scanned_imageonly_naacl2018_s2_literature_graph.pdf", ["--ocr", "never"], "OCR"),
    ("02_naacl2018_s2_literature_graph_2col_short.pdf", ["--pages", "9"], "page"),
    ("02_naacl2018_s2_literature_graph_2col_short.pdf", ["--pages", "3-x"], "page"),
    ("02_naacl2018_s2_literature_graph_2col_short.pdf", ["--to", "xx-klingon"], "language"),
]


@pytest.mark.parametrize(("name", "extra", "needle"), BAD_INPUTS)
def test_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path,
    corpus_dir: Path,
    env: dict[str, str],
    fake_vllm: tuple[str, Path],
    name: str,
    extra: list[str],
    needle: str,
) -> None:
    out = tmp_path / "out"
    result = run_cli(
        ["translate", str(corpus_dir / name), "--out", str(out), *extra], env, tmp_path
    )
    assert result.returncode == 2, result.stderr
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1
    assert needle.lower() in message.lower()
    assert not out.exists() or not any(out.iterdir())
    assert requests_made(fake_vllm[1]) == []


def test_too_large_and_missing_file(tmp_path: Path, env: dict[str, str]) -> None:
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=1))
    result = run_cli(["translate", str(paper)], {**env, "ZT_MAX_UPLOAD_MB": "0.001"}, tmp_path)
    assert result.returncode == 2
    assert "ZT_MAX_UPLOAD_MB" in result.stderr
    missing = run_cli(["translate", str(tmp_path / "nope.pdf")], env, tmp_path)
    assert missing.returncode == 2
    assert "no such file" in missing.stderr
    folder = run_cli(["translate", str(tmp_path)], env, tmp_path)
    assert folder.returncode == 2
    assert "not a file" in folder.stderr


def test_same_source_and_target_language_is_refused(
    tmp_path: Path, env: dict[str, str], fake_vllm: tuple[str, Path]
) -> None:
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=1))
    result = run_cli(["translate", str(paper), "--from", "ko", "--to", "ko-KR"], env, tmp_path)
    assert result.returncode == 2
    assert "same" in result.stderr
    assert requests_made(fake_vllm[1]) == []


def test_encrypted_paper_translates_with_its_password(
    tmp_path: Path, corpus_dir: Path, env: dict[str, str]
) -> None:
    name = "11_encrypted_userpw_1234_kdd2022_doclaynet_p3.pdf"
    result = run_cli(
        ["translate", str(corpus_dir / name), "--out", str(tmp_path), "--password", "1234"],
        env,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    with pymupdf.open(tmp_path / name.replace(".pdf", "-mono.pdf")) as doc:
        assert not doc.needs_pass
        assert any("\uac00" <= ch <= "\ud7a3" for ch in doc[0].get_text())


@pytest.mark.corpus
def test_the_summary_names_the_blocks_kept_as_printed(
    tmp_path: Path, env: dict[str, str], corpus_cut: CorpusCut
) -> None:
    # A corpus page whose translations, in the built-in face, would overprint each other
    # (tests/zotero_server/test_server_fallback.py: the same page through the server).
    paper = corpus_cut("../corpus2/133_tex_todonotes_doc_margin_notes_p12of37.pdf", [7])
    built_in = {**env, "ZT_FONT_DIR": str(tmp_path / "no-fonts-here")}
    result = run_cli(
        ["translate", str(paper), "--no-dual", "--out", str(tmp_path)], built_in, tmp_path
    )
    assert result.returncode == 0, result.stderr
    # Kept as printed: left untranslated, or with its translation set apart where it fits.
    heads = (
        "kept as printed where the translation would not fit the page: ",
        "set apart from their source, where the page had room: ",
    )
    said = [text for text in result.stderr.splitlines() if text.startswith(heads)]
    assert said, result.stderr
    named = r"page 1 \(p0-b\d+(, p0-b\d+)*\)"
    note = "(?:" + "|".join(re.escape(h) for h in heads) + ")" + named
    assert re.fullmatch(f"{note}(?:; {note})?", said[0]), said[0]


def _session_processes(session: int) -> list[str]:
    """The command lines of the live processes of ``session`` (Linux ``/proc``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            # After the command name in parentheses: state, ppid, pgrp, session.
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z" and int(fields[3]) == session:
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_no_pdf_worker_process_outlives_the_command(tmp_path: Path, env: dict[str, str]) -> None:
    """Origin: issue 38 (the PDF workers' forkserver, left to notice the command's exit, tore
    down an interpreter holding the engine 0.1-0.25 s after it: whoever read the command's
    output waited for it)."""
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(pages=1))
    with (tmp_path / "out.txt").open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "zotero_server.cli", "translate", str(paper)],
            env={**os.environ, **env},
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        assert proc.wait(timeout=120) == 0, (tmp_path / "out.txt").read_text()
    left = [line for line in _session_processes(proc.pid) if "forkserver" in line]
    assert left == []
    assert (tmp_path / "paper-mono.pdf").is_file()

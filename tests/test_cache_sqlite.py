"""TranslationCache: persistence across instances and processes, key isolation, bad files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from translation.model.cache import CacheError, CacheKey, TranslationCache


def key(text: str = "Hello.", **changes: str) -> CacheKey:
    base = CacheKey(
        model="google/translategemma-27b-it",
        prompt="translategemma-1",
        source_lang="en",
        target_lang="ko",
        text=text,
    )
    return replace(base, **changes)


def test_put_then_get_in_a_new_instance(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "cache.sqlite3"  # folder created on demand
    with TranslationCache(path) as cache:
        cache.put(key(), "안녕.")
    with TranslationCache(path) as reopened:
        assert reopened.get(key()) == "안녕."
        assert reopened.count() == 1


def test_every_key_part_matters(tmp_path: Path) -> None:
    with TranslationCache(tmp_path / "c.db") as cache:
        cache.put(key(), "안녕.")
        assert cache.get(key()) == "안녕."
        for change in (
            {"model": "other-model"},
            {"prompt": "chat-1"},
            {"source_lang": "de"},
            {"target_lang": "ja"},
            {"text": "Hello!"},
        ):
            assert cache.get(key(**change)) is None, change


def test_key_parts_cannot_be_passed_by_position() -> None:
    with pytest.raises(TypeError):
        CacheKey("m", "p", "en", "ko", "text")  # type: ignore[call-arg]


def test_put_replaces_and_get_many_returns_only_hits(tmp_path: Path) -> None:
    with TranslationCache(tmp_path / "c.db") as cache:
        cache.put(key("a"), "first")
        cache.put(key("a"), "second")
        cache.put(key("b"), "bee")
        found = cache.get_many([key("a"), key("b"), key("missing")])
        assert found == {key("a"): "second", key("b"): "bee"}
        assert cache.count() == 2
        many = [key(f"p{i}") for i in range(1200)]  # more than one SQL chunk
        for k in many[::100]:
            cache.put(k, k.text.upper())
        assert cache.get_many(many) == {k: k.text.upper() for k in many[::100]}


_WRITER = textwrap.dedent(
    """
    import sys
    from translation.model.cache import CacheKey, TranslationCache
    path, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with TranslationCache(path) as cache:
        for i in range(n):
            text = f"{tag}{i}"
            k = CacheKey(model="m", prompt="p", source_lang="en", target_lang="ko", text=text)
            cache.put(k, f"{tag}-answer-{i}")
            assert cache.get(k) == f"{tag}-answer-{i}"
        print("done", flush=True)
        if len(sys.argv) > 4:
            sys.stdin.read()  # stay alive, holding the connection, until killed
    """
)


def test_two_processes_write_at_once_and_nothing_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    TranslationCache(path).close()  # WAL mode set up before the race
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), tag, "300"],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    for writer in writers:
        out, _ = writer.communicate(timeout=60)
        assert writer.returncode == 0 and "done" in out
    with TranslationCache(path) as cache:
        assert cache.count() == 600
        probe = CacheKey(model="m", prompt="p", source_lang="en", target_lang="ko", text="b299")
        assert cache.get(probe) == "b-answer-299"


def test_answers_survive_a_killed_writer(tmp_path: Path) -> None:
    """Each put is committed at once: SIGKILL right after loses nothing."""
    path = tmp_path / "killed.db"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), "k", "20", "hold"],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "done"
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=10)
    with TranslationCache(path) as cache:
        assert cache.count() == 20


def test_a_file_that_is_not_sqlite_is_a_cache_error(tmp_path: Path) -> None:
    bad = tmp_path / "cache.sqlite3"
    bad.write_bytes(b"this is not a database, just some bytes " * 100)
    with pytest.raises(CacheError) as info:
        TranslationCache(bad)
    assert str(bad) in str(info.value)


def test_use_after_close_is_a_cache_error(tmp_path: Path) -> None:
    cache = TranslationCache(tmp_path / "c.db")
    cache.close()
    cache.close()  # twice is fine
    with pytest.raises(CacheError):
        cache.get(key())

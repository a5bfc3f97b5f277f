"""TranslationCache: persistence across instances and processes, key isolation, bad files."""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from common.settings import Settings
from tests.conftest import REPO_ROOT
from tests.helpers.server import run_app
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


def test_a_file_that_is_not_sqlite_is_moved_aside_and_an_empty_cache_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bad = tmp_path / "cache.sqlite3"
    junk = b"this is not a database, just some bytes " * 100
    bad.write_bytes(junk)
    with caplog.at_level(logging.WARNING), TranslationCache(bad) as cache:
        assert cache.count() == 0
        cache.put(key(), "안녕.")
        assert cache.get(key()) == "안녕."
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("cache.sqlite3.broken-")]
    assert aside.read_bytes() == junk  # kept for whoever wants to look at it
    assert "moved it to" in caplog.text and "cache.sqlite3" in caplog.text


def test_a_cache_damaged_inside_is_moved_aside_at_open(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    with TranslationCache(path) as cache:
        for i in range(400):
            cache.put(key(f"paragraph {i} " * 20), f"answer {i} " * 20)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
    db.close()
    with path.open("r+b") as f:  # a page in the middle of the table: the header stays good
        f.seek(page_size * 20)
        f.write(b"\xff" * page_size)
    with TranslationCache(path) as cache:
        assert cache.count() == 0
    assert any(p.name.startswith("cache.sqlite3.broken-") for p in tmp_path.iterdir())


def test_a_cache_that_cannot_be_opened_is_a_cache_error(tmp_path: Path) -> None:
    where = tmp_path / "a-folder"
    where.mkdir()  # a folder where the file should be: nothing to move aside
    with pytest.raises(CacheError) as info:
        TranslationCache(where)
    assert str(where) in str(info.value)
    assert where.is_dir()


def test_get_many_since_returns_only_answers_stored_from_then_on(tmp_path: Path) -> None:
    with TranslationCache(tmp_path / "c.db") as cache:
        cache.put(key("old"), "old answer")
        since = time.time()
        cache.put(key("new"), "new answer")
        assert cache.get_many([key("old"), key("new")], since=since) == {key("new"): "new answer"}
        assert len(cache.get_many([key("old"), key("new")])) == 2


_FULL_DISK = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from common.errors import DiskFullError
    from translation.model.cache import CacheKey, TranslationCache
    from zotero_server.http_errors import status_for

    folder = Path(sys.argv[1])
    def key(i):
        return CacheKey(model="m", prompt="p", source_lang="en", target_lang="ko", text=f"t{i}")
    cache = TranslationCache(folder / "cache.sqlite3")
    cache.put(key(0), "a0")
    with (folder / "filler").open("wb", buffering=0) as filler:  # the rest of the disk
        try:
            while True:
                filler.write(bytes(4096))
        except OSError:
            pass
    answered, error, first_failed = [0], None, None
    for i in range(1, 400):  # on until three more answers came after the first failure
        try:
            cache.put(key(i), f"a{i}")
        except DiskFullError as exc:
            error = exc
            first_failed = i if first_failed is None else first_failed
        answered.append(i)
        if first_failed is not None and i >= first_failed + 3:
            break
    kept = {k.text: v for k, v in cache.get_many([key(i) for i in answered]).items()}
    (folder / "filler").unlink()  # space again
    cache.put(key(999), "a999")
    cache.close()
    with TranslationCache(folder / "cache.sqlite3") as again:
        stored = {k.text: v for k, v in again.get_many([key(i) for i in answered]).items()}
    print(json.dumps({
        "error": None if error is None else [type(error).__name__, str(error), status_for(error)],
        "answered": len(answered), "kept": len(kept), "stored": len(stored),
    }))
    """
)


def test_a_full_disk_is_disk_full_and_keeps_every_answer_until_there_is_room(
    tmp_path: Path,
) -> None:
    """A real full disk: a 1 MiB tmpfs in a user namespace (skipped where there is none)."""
    folder = tmp_path / "small-disk"
    folder.mkdir()
    mount = f'mount -t tmpfs -o size=1m tmpfs {folder} && exec "$0" -c "$1" {folder}'
    run = subprocess.run(
        ["unshare", "-rm", "sh", "-c", mount, sys.executable, _FULL_DISK],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if run.returncode != 0 and "mount" in run.stderr + run.stdout and "Traceback" not in run.stderr:
        pytest.skip(f"no tmpfs in a user namespace here: {run.stderr.strip()[:200]}")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["error"] is not None, "the disk never filled"
    kind, message, status = result["error"]
    assert kind == "DiskFullError" and status == 507
    assert "disk full in ZT_DATA_DIR" in message
    # Every answer received, before and after the disk filled, is served meanwhile and is
    # in the file once there is room again.
    assert result["kept"] == result["answered"]
    assert result["stored"] == result["answered"]


def test_use_after_close_is_a_cache_error(tmp_path: Path) -> None:
    cache = TranslationCache(tmp_path / "c.db")
    cache.close()
    cache.close()  # twice is fine
    with pytest.raises(CacheError):
        cache.get(key())


def test_the_server_starts_on_a_damaged_cache(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """Origin: hardening, issue 20 (durable state)."""
    settings.cache_path.parent.mkdir(parents=True, exist_ok=True)
    settings.cache_path.write_bytes(b"not a database at all " * 500)
    with caplog.at_level(logging.WARNING), run_app(settings) as srv, srv.client() as client:
        assert client.get("/health").json()["status"] == "ok"
    assert "translation cache" in caplog.text and "moved it to" in caplog.text
    name = settings.cache_path.name
    assert any(p.name.startswith(name + ".broken-") for p in settings.cache_path.parent.iterdir())

"""Issue 20, durable state: a damaged or locked job store, a damaged cache, two servers on one
data folder, outputs of a job killed before it recorded "done", a force job run again after a
restart, and a cancel racing the job's end.

Damage is real: bytes of a real store overwritten on disk (the page of SQLite's AUTOINCREMENT
counter, outside the jobs table: every insert fails, every read of the jobs works). Locks are
real: another SQLite connection holding the write lock.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pymupdf
import pytest

from common.progress import ProgressSink
from common.settings import ConcurrencyMode, Settings
from tests.helpers.net import free_port, wait_for_port
from tests.helpers.server import make_paper, plugin_body, run_app, wait_until
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from zotero_server.data_lock import FILE_NAME as LOCK_FILE
from zotero_server.data_lock import DataDirInUseError, DataDirLock
from zotero_server.events import EventBus
from zotero_server.file_names import OutputKind
from zotero_server.files import OutputStore
from zotero_server.http_errors import TaskFinishedError
from zotero_server.job import Job
from zotero_server.job_store import FILE_NAME, JobStore
from zotero_server.jobs import JobRegistry

REPO = Path(__file__).resolve().parent.parent


def damage_outside_the_jobs_table(path: Path) -> None:
    """Overwrite the page of ``sqlite_sequence`` (the AUTOINCREMENT counter) with garbage."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
        (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_sequence'")
    db.close()
    with path.open("r+b") as f:
        f.seek((int(root[0]) - 1) * page_size)
        f.write(b"\xff" * page_size)


def distinct_paper(count: int = 10) -> bytes:
    """One page of ``count`` different paragraphs (the cache cannot answer one for another)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for i in range(count):
        text = f"Paragraph number {i} describes experiment {i * 7 + 3} on dataset {i}."
        page.insert_textbox(pymupdf.Rect(72, 60 + 75 * i, 523, 120 + 75 * i), text, fontsize=11)
    data: bytes = doc.tobytes()
    doc.close()
    return data


@pytest.fixture
def slow_llm(tmp_path: Path) -> Iterator[FakeVLLMProcess]:
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory.start("--fake-latency-ms", "400")


def configured(settings: Settings, llm: FakeVLLMProcess) -> Settings:
    return settings.model_copy(
        update={
            "llm_base_url": llm.base_url,
            "concurrency_mode": ConcurrencyMode.FIXED,
            "concurrency": 2,
        }
    )


def task_of(client: httpx.Client, task_id: str) -> httpx.Response:
    return client.get(f"/api/tasks/{task_id}")


# --- item 3: a damaged job store -------------------------------------------------------------


def test_a_store_damaged_outside_the_jobs_table_is_moved_aside_with_its_records(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / FILE_NAME
    store = JobStore(path)
    for name in ("a", "b"):
        store.save(name, {"name": name})
    store.close()
    damage_outside_the_jobs_table(path)

    with caplog.at_level(logging.WARNING):
        store = JobStore(path)
    store.save("c", {"name": "c"})  # a new job: an insert, which the damage made fail
    store.close()
    assert [job_id for job_id, _ in JobStore(path).load()] == ["a", "b", "c"]
    assert any(p.name.startswith(FILE_NAME + ".broken-") for p in tmp_path.iterdir())
    assert "moved it to" in caplog.text


def test_jobs_accepted_on_a_damaged_store_are_still_there_after_a_restart(
    settings: Settings, slow_llm: FakeVLLMProcess
) -> None:
    path = settings.data_dir / FILE_NAME
    JobStore(path).close()
    damage_outside_the_jobs_table(path)
    serving = configured(settings, slow_llm)
    with run_app(serving) as srv, srv.client() as client:
        body = plugin_body(distinct_paper(), "paper.pdf", asyncJob="true", dual="false")
        task_id = client.post("/translate", json=body).json()["taskId"]
        wait_until(lambda: len(slow_llm.requests()) >= 1, what="the first paragraph")
    upload = settings.data_dir / "uploads" / f"{task_id}.pdf"
    assert upload.exists()  # the job did not end: its upload waits for the next start

    with run_app(serving) as srv, srv.client() as client:
        assert task_of(client, task_id).status_code == 200  # the plugin's poll: never a 404
        wait_until(lambda: task_of(client, task_id).json()["task"]["finished"], what="the end")
        task = task_of(client, task_id).json()["task"]
        assert task["status"] == "完成", task
        assert task["fileList"] == ["paper-mono.pdf"]
    assert not upload.exists()


# --- item 7: a lock another process holds ----------------------------------------------------


def test_a_locked_store_never_stalls_the_server_and_the_job_says_why(settings: Settings) -> None:
    answers: list[httpx.Response] = []
    with run_app(settings) as srv, srv.client() as client:
        holder = sqlite3.connect(settings.data_dir / FILE_NAME, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # another process's write transaction, held
        try:
            body = plugin_body(make_paper(), "p.pdf")
            post = threading.Thread(target=lambda: answers.append(client.post("/crop", json=body)))
            post.start()
            wait_until(
                lambda: (
                    srv.services.registry.counts() != {"queued": 0, "running": 0, "finished": 0}
                ),
                what="a job",
            )
            for _ in range(3):
                started = time.monotonic()
                assert client.get("/health").json()["status"] == "ok"
                assert time.monotonic() - started < 2.0  # was 5 s per job-store write
            post.join(timeout=60)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        [answer] = answers
        assert answer.json()["errorType"] == "JobStoreBusy", answer.text
        assert "locked by another process" in answer.json()["message"]
        [task] = client.get("/api/history").json()["history"]
        assert task["status"] == "failed" and task["errorType"] == "JobStoreBusy"
        assert client.get("/health").status_code == 200


# --- item 6: a damaged cache -----------------------------------------------------------------


def test_the_server_starts_on_a_damaged_cache(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.cache_path.parent.mkdir(parents=True, exist_ok=True)
    settings.cache_path.write_bytes(b"not a database at all " * 500)
    with caplog.at_level(logging.WARNING), run_app(settings) as srv, srv.client() as client:
        assert client.get("/health").json()["status"] == "ok"
    assert "translation cache" in caplog.text and "moved it to" in caplog.text
    name = settings.cache_path.name
    assert any(p.name.startswith(name + ".broken-") for p in settings.cache_path.parent.iterdir())


# --- item 8: one server per data folder ------------------------------------------------------


def serve(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    code = "import sys; from zotero_server.cli import main; sys.exit(main(sys.argv[1:]))"
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", code, "serve", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )


def test_a_second_server_on_the_same_data_folder_refuses_to_start(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZT_")}
    env.update(ZT_DATA_DIR=str(tmp_path / "data"), ZT_LLM_BASE_URL="http://127.0.0.1:9/v1")
    port = free_port()
    first = serve(port, env, tmp_path / "first.log")
    try:
        wait_for_port(port, timeout=60)
        second_port = free_port()
        code = "import sys; from zotero_server.cli import main; sys.exit(main(sys.argv[1:]))"
        second = subprocess.run(
            [sys.executable, "-c", code, "serve", "--port", str(second_port)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2, second.stderr
        lines = [line for line in second.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, second.stderr
        assert f"pid {first.pid}" in lines[0] and f"127.0.0.1:{port}" in lines[0]
        assert "in use by another zotero-translate server" in lines[0]
        assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=10).status_code == 200
    finally:
        first.terminate()
        first.wait(timeout=30)


def test_a_lock_file_left_by_a_dead_server_does_not_block(settings: Settings) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    stale = {"pid": int(dead.stdout), "address": "http://127.0.0.1:1", "started": "earlier"}
    (settings.data_dir / LOCK_FILE).write_text(json.dumps(stale))
    with run_app(settings) as srv, srv.client() as client:
        assert client.get("/health").status_code == 200
        owner = json.loads((settings.data_dir / LOCK_FILE).read_text())
        assert owner["pid"] == os.getpid()
        with pytest.raises(DataDirInUseError, match=f"pid {os.getpid()}"):
            DataDirLock.acquire(settings.data_dir, "http://127.0.0.1:2")  # held while it runs
    with run_app(settings) as srv:  # released at the stop
        assert srv.client().get("/health").status_code == 200


# --- item 9a: outputs of a job killed before "done"; a force job run again --------------------


def test_a_rerun_after_a_kill_removes_the_stale_outputs_and_pays_no_paragraph_twice(
    settings: Settings, slow_llm: FakeVLLMProcess
) -> None:
    serving = configured(settings, slow_llm)
    with run_app(serving) as srv, srv.client() as client:
        body = plugin_body(distinct_paper(), "paper.pdf", asyncJob="true", force="true")
        task_id = client.post("/translate", json=body).json()["taskId"]
        wait_until(lambda: len(slow_llm.requests()) >= 3, what="three paragraphs")
    first_run = len(slow_llm.requests())

    # What a kill -9 right after writing the outputs leaves: the names claimed, no "done".
    outputs = serving.outputs_dir
    (outputs / "paper-mono.pdf").write_bytes(b"%PDF- written before the kill")
    store = JobStore(serving.data_dir / FILE_NAME)
    [(job_id, record)] = store.load()
    assert job_id == task_id
    store.save(job_id, {**record, "claimed": ["paper-mono.pdf", "paper-dual.pdf"]})
    store.close()

    with run_app(serving) as srv, srv.client() as client:
        wait_until(lambda: task_of(client, task_id).json()["task"]["finished"], what="the end")
        task = task_of(client, task_id).json()["task"]
        assert task["status"] == "完成", task
        assert task["fileList"] == ["paper-mono.pdf", "paper-dual.pdf"]
        assert sorted(p.name for p in outputs.iterdir()) == ["paper-dual.pdf", "paper-mono.pdf"]
        mono = client.get("/translatedFile/paper-mono.pdf").content
        assert mono.startswith(b"%PDF-") and b"before the kill" not in mono
    sent = [entry["text"] for entry in slow_llm.requests()]
    assert 0 < first_run < len(sent)  # the stop landed mid-paper
    assert len(sent) == len(set(sent)), "force made the rerun pay again for answers it had"


# --- item 9b: a cancel racing the job's end ---------------------------------------------------


def job() -> Job:
    return Job(file_name="p.pdf", operation="translate", config={}, resumable=True)


async def test_a_cancel_while_a_finished_job_cleans_up_is_already_finished(tmp_path: Path) -> None:
    reg = JobRegistry(EventBus(), max_jobs=1, output_dir="/out", store=JobStore(tmp_path / "j"))
    cleaning, release = asyncio.Event(), asyncio.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        return ["p-mono.pdf"]

    async def discard() -> None:  # the upload's removal, slow
        cleaning.set()
        await release.wait()

    running = reg.submit(job(), work, discard)
    await asyncio.wait_for(cleaning.wait(), 10)
    with pytest.raises(TaskFinishedError, match="already finished"):
        reg.cancel(running.id)
    release.set()
    done = await reg.wait(running)
    assert done.to_task()["status"] == "完成" and done.files == ["p-mono.pdf"]


async def test_a_cancel_before_the_outputs_are_claimed_wins_and_leaves_no_output(
    tmp_path: Path,
) -> None:
    outputs = OutputStore(tmp_path / "out", 3600.0)
    outputs.prepare()
    reg = JobRegistry(EventBus(), max_jobs=1, output_dir="/out", store=JobStore(tmp_path / "j"))
    about_to_claim, go = threading.Event(), threading.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        claim = reg.claimer(job)

        def slow_claim(names: list[str]) -> None:  # the thread is slow to get there
            about_to_claim.set()
            go.wait(10)
            claim(names)

        data = [(OutputKind.MONO, b"%PDF-mono")]
        return await asyncio.to_thread(outputs.save, "p", data, slow_claim)

    running = reg.submit(job(), work)
    await asyncio.to_thread(about_to_claim.wait, 10)
    reg.cancel(running.id)  # wins: the claim comes after it
    go.set()
    await asyncio.wait_for(running.finished_event.wait(), 10)
    assert running.to_task()["errorType"] == "Cancelled"
    await asyncio.sleep(0.2)  # the writing thread finishes after the job ended
    assert list(outputs.directory.iterdir()) == []


async def test_a_cancel_after_the_outputs_are_claimed_is_already_finished(tmp_path: Path) -> None:
    outputs = OutputStore(tmp_path / "out", 3600.0)
    outputs.prepare()
    reg = JobRegistry(EventBus(), max_jobs=1, output_dir="/out", store=JobStore(tmp_path / "j"))
    claimed, go = threading.Event(), threading.Event()

    async def work(job: Job, sink: ProgressSink) -> list[str]:
        claim = reg.claimer(job)

        def claim_then_wait(names: list[str]) -> None:
            claim(names)
            claimed.set()
            go.wait(10)  # the bytes are on their way

        data = [(OutputKind.MONO, b"%PDF-mono")]
        return await asyncio.to_thread(outputs.save, "p", data, claim_then_wait)

    running = reg.submit(job(), work)
    await asyncio.to_thread(claimed.wait, 10)
    with pytest.raises(TaskFinishedError):
        reg.cancel(running.id)
    go.set()
    done = await reg.wait(running)
    assert done.files == ["p-mono.pdf"]
    assert (outputs.directory / "p-mono.pdf").read_bytes() == b"%PDF-mono"

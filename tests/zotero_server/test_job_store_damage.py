"""The job store under damage: a damaged or locked job store, and the outputs of a job
killed before it recorded "done" (a force job run again after a restart).

Damage is real: bytes of a real store overwritten on disk (the page of SQLite's AUTOINCREMENT
counter, outside the jobs table: every insert fails, every read of the jobs works). Locks are
real: another SQLite connection holding the write lock.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from common.settings import ConcurrencyMode, Settings
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, plugin_body, run_app, wait_until
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from zotero_server.job_store import FILE_NAME, JobStore


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
    texts = [
        f"Paragraph number {i} describes experiment {i * 7 + 3} on dataset {i}."
        for i in range(count)
    ]
    return small_paper(paragraphs=texts, step=70.0)


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
    """Origin: hardening, issue 20 (durable state)."""
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
    """Origin: hardening, issue 20 (durable state)."""
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
    """Origin: hardening, issue 20 (durable state)."""
    answers: list[httpx.Response] = []
    with run_app(settings) as srv, srv.client() as client:
        holder = sqlite3.connect(settings.data_dir / FILE_NAME, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # another process's write transaction, held
        try:
            body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "p.pdf")
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


# --- item 8: one server per data folder ------------------------------------------------------


# --- item 9a: outputs of a job killed before "done"; a force job run again --------------------


def test_a_rerun_after_a_kill_removes_the_stale_outputs_and_pays_no_paragraph_twice(
    settings: Settings, slow_llm: FakeVLLMProcess
) -> None:
    """Origin: hardening, issue 20 (durable state)."""
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

"""Progress over SSE: typed events in stage order, heartbeats, ``Last-Event-ID`` resume."""

from __future__ import annotations

from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import (
    PARAGRAPHS,
    RunningServer,
    SSEReader,
    plugin_body,
    read_sse,
    wait_until,
)

# The fixtures ``fake_llm`` and ``srv`` (pytest finds them by these imports).
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture


def submit(srv: RunningServer, name: str = "paper.pdf") -> str:
    with srv.client() as client:
        body = plugin_body(
            small_paper(pages=2, paragraphs=PARAGRAPHS), name, dual="false", asyncJob="true"
        )
        answer = client.post("/translate", json=body).json()
    assert answer["status"] == "accepted", answer
    return str(answer["taskId"])


def done_for(task_id: str):
    return lambda e: e["event"] in ("done", "failed") and e["data"].get("taskId") == task_id


def test_events_carry_the_stage_sequence_and_progress(srv: RunningServer) -> None:
    with srv.client(timeout=30) as client, client.stream("GET", "/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        reader = SSEReader(stream)
        events = reader.until(lambda e: e["event"] == "snapshot")
        assert events[-1]["data"]["jobs"] == []
        assert events[-1]["data"]["server"]["state"]
        task_id = submit(srv)
        events = reader.until(done_for(task_id))
    mine = [e for e in events if e["event"] != "comment" and e["data"].get("taskId") == task_id]
    stages = [e["data"]["stage"] for e in mine if e["event"] == "stage"]
    assert stages == ["queued", "translating", "rendering"]
    assert mine[-1]["event"] == "done"
    assert mine[-1]["data"]["fileList"] == ["paper-mono.pdf"]
    progress = [e["data"]["progress"] for e in mine]
    assert progress == sorted(progress) and progress[-1] == 100
    assert any(e["event"] == "progress" and 0 < e["data"]["done"] for e in mine)
    ids = [int(e["id"].split(".")[1]) for e in mine]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_one_task_stream_ends_after_its_last_event(srv: RunningServer) -> None:
    task_id = submit(srv)
    with srv.client(timeout=30) as client:
        with client.stream("GET", f"/api/tasks/{task_id}/events") as stream:
            events = read_sse(stream, lambda e: False)  # reads until the server closes
    assert events[0]["event"] == "snapshot"
    assert [e["event"] for e in events if e["event"] != "comment"][-1] == "done"
    # A finished task's stream is its final state, then the end.
    with srv.client(timeout=30) as client:
        with client.stream("GET", f"/api/tasks/{task_id}/events") as stream:
            again = [e for e in read_sse(stream, lambda e: False) if e["event"] != "comment"]
    assert [e["event"] for e in again] == ["snapshot"]
    assert again[0]["data"]["job"]["status"] == "完成"


def test_last_event_id_resumes_exactly_where_the_client_left(srv: RunningServer) -> None:
    with srv.client(timeout=30) as client:
        with client.stream("GET", "/events") as stream:
            # A first watcher gets the snapshot, then the server's state once the status loop
            # sees it (within a poll). Leaving after both is leaving at a known place: after the
            # snapshot alone, the state event would fall before the job's or among them.
            seen = read_sse(stream, lambda e: e["event"] == "server")
        left_at = [e for e in seen if e["event"] != "comment"]
        assert [e["event"] for e in left_at] == ["snapshot", "server"]
        task_id = submit(srv)
        job = srv.services.registry.get(task_id)
        assert job is not None
        wait_until(lambda: job.finished, what="the job")
        headers = {"Last-Event-ID": left_at[-1]["id"]}
        with client.stream("GET", "/events", headers=headers) as stream:
            missed = read_sse(stream, done_for(task_id))
        missed = [e for e in missed if e["event"] != "comment"]
        assert missed[0]["event"] == "stage" and missed[0]["data"]["stage"] == "queued"
        assert missed[-1]["event"] == "done"
        first_id = int(left_at[-1]["id"].split(".")[1])
        assert [int(e["id"].split(".")[1]) for e in missed] == list(
            range(first_id + 1, first_id + 1 + len(missed))
        )
        # An id from an earlier server run cannot be resumed: start over from a snapshot.
        with client.stream("GET", "/events", headers={"Last-Event-ID": "0ld.3"}) as stream:
            (fresh,) = read_sse(stream, lambda e: e["event"] == "snapshot")
        assert [j["taskId"] for j in fresh["data"]["jobs"]] == [task_id]
        assert fresh["data"]["files"] == ["paper-mono.pdf"]


def test_heartbeats_keep_idle_streams_alive(srv: RunningServer) -> None:
    with srv.client(timeout=30) as client, client.stream("GET", "/events") as stream:
        events = read_sse(stream, lambda e: e["event"] == "comment")
    assert events[0]["event"] == "snapshot"
    assert events[-1]["event"] == "comment" and "ping" in events[-1]["data"]


def test_server_state_is_published_while_someone_watches(srv: RunningServer) -> None:
    with srv.client(timeout=30) as client, client.stream("GET", "/events") as stream:
        events = read_sse(stream, lambda e: e["event"] == "server")
    server = events[-1]["data"]
    assert server["manager"] == "none"
    assert server["vllm"]["healthy"] is True

"""Every zotero-pdf2zh plugin generation against the real app and the fake vLLM, over loopback.

Each test drives the server the way that plugin version does (docs/architecture.md §4) and
checks what the user would: the downloaded PDF is the translation (the fake's pseudo-Korean is
in it, the English is gone), a GET removes the file, a HEAD does not, and a second GET is a 410
saying when.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from urllib.parse import quote

import httpx

from tests.fakes.pseudo import pseudo_words
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import (
    PARAGRAPHS,
    RunningServer,
    hangul_count,
    pdf_text,
    plugin_body,
    wait_until,
)

# The fixtures ``fake_llm`` and ``srv`` (pytest finds them by these imports).
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture


def gone(srv: RunningServer, name: str) -> None:
    """Wait for the delete that follows a completed GET (it runs after the last byte)."""
    wait_until(lambda: name not in srv.services.outputs.names(), what=f"{name} to be deleted")


def assert_is_translation(pdf: bytes, paragraphs: tuple[str, ...] = PARAGRAPHS) -> None:
    """The pseudo translation of every paragraph is there; the English is not."""
    assert pdf.startswith(b"%PDF")
    text = " ".join(pdf_text(pdf).split())
    assert hangul_count(text) > 5 * len(paragraphs), text[:300]
    for paragraph in paragraphs:
        expected = pseudo_words(paragraph, "ko")
        found = sum(1 for word in expected if word in text)
        assert found >= 0.8 * len(expected), (paragraph, text[:300])
        assert paragraph[:30] not in text


def assert_dual(pdf: bytes, paragraphs: tuple[str, ...] = PARAGRAPHS) -> None:
    """A bilingual file holds both the English and the pseudo translation."""
    text = " ".join(pdf_text(pdf).split())
    assert hangul_count(text) > 50
    assert paragraphs[0][:30] in text


def test_v2_client_builds_the_names_itself(srv: RunningServer) -> None:
    """v2.x reads only ``status`` and GETs ``<stem>-mono.pdf``/``-dual.pdf`` it computed."""
    body = {
        "fileName": "paper.pdf",
        "fileContent": plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf")["fileContent"],
        "threadNum": "4",
        "engine": "pdf2zh",
        "service": "bing",
        "outputPath": "./translated/",
        "configPath": "./config.json",
        "mono": "true",
        "dual": "true",
        "mono_cut": "false",
        "dual_cut": "false",
        "compare": "false",
        "single_compare": "false",
        "babeldoc": "false",
        "skip_subset_fonts": "false",
        "skip_last_pages": "0",
        "sourceLang": "en",
        "targetLang": "ko",
    }
    with srv.client() as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "success"
        for name in ("paper.pdf".replace(".pdf", "-mono.pdf"), "paper-dual.pdf"):
            got = client.get(f"/translatedFile/{name}")
            assert got.status_code == 200
            assert got.headers["content-type"] == "application/pdf"
            if "mono" in name:
                assert_is_translation(got.content)
            else:
                assert_dual(got.content)
        gone(srv, "paper-mono.pdf")
        gone(srv, "paper-dual.pdf")  # its delete, too, runs after its last byte
        assert client.get("/translatedFile/paper-mono.pdf").status_code == 410
    assert srv.services.outputs.names() == []
    assert srv.services.uploads.names() == []  # the upload went when its job ended


def test_v3_sync_head_then_get(srv: RunningServer) -> None:
    """v3.x-4.1.2: sync ``fileList``; HEAD (must be 200) then GET each name, not encoded."""
    with srv.client() as client:
        answer = client.post(
            "/translate", json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "My Paper.pdf")
        )
        assert answer.status_code == 200, answer.text
        payload = answer.json()
        assert payload["status"] == "success"
        assert payload["fileList"] == ["My Paper-mono.pdf", "My Paper-dual.pdf"]
        assert payload["filePaths"] == [f"{payload['outputDir']}/{n}" for n in payload["fileList"]]
        contents = {}
        for name in payload["fileList"]:
            head = client.head(f"/translatedFile/{name}")
            assert head.status_code == 200
            assert head.headers["content-type"] == "application/pdf"
            assert int(head.headers["content-length"]) > 1000
            assert head.content == b""
            assert client.head(f"/translatedFile/{name}").status_code == 200  # HEAD kept it
            got = client.get(f"/translatedFile/{name}")
            assert got.status_code == 200
            assert len(got.content) == int(head.headers["content-length"])
            contents[name] = got.content
            assert got.headers["content-disposition"].startswith("attachment;")
            gone(srv, name)
            second = client.get(f"/translatedFile/{name}")
            assert second.status_code == 410
            assert second.json()["status"] == "error"
            assert client.head(f"/translatedFile/{name}").status_code == 410
    assert_is_translation(contents["My Paper-mono.pdf"])
    assert_dual(contents["My Paper-dual.pdf"])


def test_v413_gets_with_encode_uri_component(srv: RunningServer) -> None:
    """v4.1.3: ``fetch(/translatedFile/${encodeURIComponent(name)})``, CJK and spaces."""
    name = "논문 초안 (최종), v2.pdf"
    with srv.client() as client:
        answer = client.post(
            "/translate", json=plugin_body(small_paper(paragraphs=PARAGRAPHS), name, dual="false")
        )
        assert answer.status_code == 200, answer.text
        (mono,) = answer.json()["fileList"]
        assert mono == "논문 초안 (최종), v2-mono.pdf"
        got = client.get("/translatedFile/" + quote(mono, safe="-_.!~*'()"))
        assert got.status_code == 200
        assert got.headers["content-disposition"].endswith(
            "filename*=UTF-8''" + quote(mono, safe="")
        )
        assert_is_translation(got.content)
        gone(srv, mono)
        assert client.get("/translatedFile/" + quote(mono, safe="")).status_code == 410


def test_todays_plugin_goes_async_and_polls(srv: RunningServer) -> None:
    """HEAD plugin: ``asyncJob`` + header -> ``accepted``; poll /api/tasks, then /api/history."""
    body = plugin_body(small_paper(pages=2, paragraphs=PARAGRAPHS), "paper.pdf", asyncJob=True)
    with srv.client(headers={"X-PDF2zh-Protocol": "accepted"}) as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "accepted"
        task_id = answer.json()["taskId"]
        seen_progress = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            tasks = client.get("/api/tasks").json()
            assert tasks["status"] == "success"
            mine = [t for t in tasks["tasks"] if t["taskId"] == task_id]
            assert mine, "a task stays in /api/tasks for 30 s after it ends"
            seen_progress.append(mine[0]["progress"])
            if mine[0]["finished"]:
                break
            assert mine[0]["status"] == "开始翻译"
            time.sleep(0.05)
        task = mine[0]
        assert task["status"] == "完成"
        assert task["progress"] == 100
        assert seen_progress == sorted(seen_progress)
        assert all(0 <= p <= 100 for p in seen_progress)
        assert task["fileList"] == ["paper-mono.pdf", "paper-dual.pdf"]
        assert task["result"]["status"] == "success"
        history = client.get("/api/history").json()
        assert history["status"] == "success"
        (done,) = [t for t in history["history"] if t["taskId"] == task_id]
        assert done["status"] == "success" and done["fileList"] == task["fileList"]
        mono = client.get("/translatedFile/" + quote(task["fileList"][0], safe=""))
        assert_is_translation(mono.content)


def test_double_slash_url_is_the_same_endpoint(srv: RunningServer) -> None:
    """Users type ``http://host:8890/``; the plugin then POSTs ``//translate``."""
    with httpx.Client(timeout=60) as client:  # a full URL: httpx reads "//x" as a host
        body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "a.pdf", dual="false")
        answer = client.post(srv.url + "//translate", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["fileList"] == ["a-mono.pdf"]
        assert client.get(srv.url + "//translatedFile/a-mono.pdf").status_code == 200


def test_two_users_send_paper_pdf_at_once(srv: RunningServer) -> None:
    """Same file name, different papers, concurrently: distinct outputs, each its own paper."""
    papers = {
        "alice": ("Graph neural networks propagate messages along citation edges.",),
        "bob": ("Protein folding predictions benefit from evolutionary couplings.",),
    }
    answers: dict[str, httpx.Response] = {}

    def send(user: str) -> None:
        body = plugin_body(small_paper(paragraphs=papers[user]), "paper.pdf", dual="false")
        with srv.client() as client:
            answers[user] = client.post("/translate", json=body)

    threads = [threading.Thread(target=send, args=(user,)) for user in papers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    names = {user: answers[user].json()["fileList"][0] for user in papers}
    assert sorted(names.values()) == ["paper-2-mono.pdf", "paper-mono.pdf"]
    with srv.client() as client:
        for user, name in names.items():
            got = client.get(f"/translatedFile/{name}")
            assert_is_translation(got.content, papers[user])


def test_skip_last_pages_leaves_the_tail_untranslated(srv: RunningServer) -> None:
    paper = small_paper(pages=3, paragraphs=PARAGRAPHS)
    with srv.client() as client:
        body = plugin_body(paper, "p.pdf", dual="false", skipLastPages="2")
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        mono = client.get("/translatedFile/p-mono.pdf").content
    import pymupdf

    with pymupdf.open(stream=mono, filetype="pdf") as doc:
        first, last = doc[0].get_text(), doc[doc.page_count - 1].get_text()
    assert hangul_count(first) > 50
    assert PARAGRAPHS[0] in " ".join(last.split())


def test_health_answers_the_plugins_connection_check(srv: RunningServer) -> None:
    with srv.client() as client:
        health = client.get("/health").json()
    assert health["status"] == "ok" and health["version"]
    assert health["vllm"]["healthy"] is True
    assert health["vllm"]["manager"] == "none"
    assert health["jobs"] == {"queued": 0, "running": 0, "finished": 0}


def test_an_encrypted_paper_with_its_password(srv: RunningServer, corpus_dir: Path) -> None:
    """Not something the plugin sends, but the upload form does: ``password``."""
    paper = (corpus_dir / "11_encrypted_userpw_1234_kdd2022_doclaynet_p3.pdf").read_bytes()
    with srv.client() as client:
        refused = client.post("/translate", json=plugin_body(paper, "locked.pdf"))
        assert refused.status_code == 400
        body = plugin_body(paper, "locked.pdf", password="1234", compare="true")
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        for name in answer.json()["fileList"]:
            text = pdf_text(client.get(f"/translatedFile/{name}").content)
            assert hangul_count(text) > 200, name


def test_a_rerun_whose_names_are_taken_says_what_it_saved(srv: RunningServer) -> None:
    """Issue 39: the second run of a paper whose files still wait is named ``-2-``, and says so."""
    with srv.client() as client:
        first = client.post(
            "/translate",
            json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", dual="false"),
        )
        assert first.json()["fileList"] == ["paper-mono.pdf"]
        again = client.post(
            "/translate",
            json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", dual="false"),
        )
        assert again.json()["fileList"] == ["paper-2-mono.pdf"]
        history = client.get("/api/history").json()["history"]
    newest, oldest = (task["message"] for task in history)  # newest first
    assert "saved as" not in oldest, oldest
    assert newest.endswith(
        "; saved as paper-2-mono.pdf: paper-mono.pdf of an earlier translation is still"
        " waiting for download"
    ), newest

"""The web guard in a real Gecko: Zotero's own requests pass it; a web page's do not.

Security bar: ``test_the_plugin_in_geckos_privileged_context_is_served`` and
``test_a_page_of_another_origin_is_refused`` (item 10).

Zotero runs the plugin's code in Gecko's privileged context, whose requests carry no
``Origin`` and no ``Sec-Fetch-*`` header; the web guard lets such requests through. A real
Gecko (Debian's firefox-esr, headless, driven through Marionette) sends the plugin's requests
from its chrome context: ``POST /translate`` with an ``llm_api`` object, ``GET /api/tasks``,
``HEAD`` and ``GET /translatedFile``; they succeed. The same requests from a page served on
another loopback port (content context) are refused: the server answers 403 (seen in its
access log), the browser blocks what needs a CORS preflight, and nothing is queued,
downloaded or deleted. Skips with a reason without firefox-esr or marionette-driver.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.gecko import gecko
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import API_KEY, LLM_API, PARAGRAPHS, RunningServer, plugin_body

# The fixtures ``fake_llm`` and ``srv`` (pytest finds them by these imports).
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture
from zotero_server.file_names import OutputKind

pytestmark = [pytest.mark.browser]

SCRIPT_TIMEOUT_MS = 120_000

#: The plugin's calls, as ``Zotero.HTTP.request`` makes them: XMLHttpRequest, JSON body.
PLUGIN_SCRIPT = """
const [base, body, resolve] = arguments;
function call(method, path, data) {
  return new Promise(done => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, base + path);
    if (data !== undefined) xhr.setRequestHeader("Content-Type", "application/json");
    xhr.onload = () => done({status: xhr.status, text: method === "HEAD" ? "" : xhr.responseText});
    xhr.onerror = () => done({status: 0, text: "network error"});
    xhr.send(data === undefined ? null : JSON.stringify(data));
  });
}
(async () => {
  const translate = await call("POST", "/translate", body);
  if (translate.status !== 200) return {translate: translate.status, text: translate.text};
  const names = JSON.parse(translate.text).fileList || [];
  const tasks = await call("GET", "/api/tasks");
  const files = [];
  for (const name of names) {
    const path = "/translatedFile/" + encodeURIComponent(name);
    const head = await call("HEAD", path);
    const got = await call("GET", path);
    files.push({name, head: head.status, get: got.status, pdf: got.text.startsWith("%PDF")});
  }
  return {translate: translate.status, tasks: tasks.status, tasksText: tasks.text, files};
})().then(resolve, error => resolve({error: String(error)}));
"""

#: The same requests from a web page: as the plugin sends them (JSON: the browser asks the
#: server first) and in the shapes that need no preflight (text/plain, no-cors).
PAGE_SCRIPT = """
const [base, name, body, resolve] = arguments;
const outcome = promise => promise.then(r => r.type === "opaque" ? "sent" : r.status,
                                        () => "blocked");
(async () => ({
  jsonPost: await outcome(fetch(base + "/translate", {method: "POST", body: JSON.stringify(body),
                                 headers: {"Content-Type": "application/json"}})),
  plainPost: await outcome(fetch(base + "/translate", {method: "POST", mode: "no-cors",
                                  body: JSON.stringify(body),
                                  headers: {"Content-Type": "text/plain"}})),
  tasks: await outcome(fetch(base + "/api/tasks")),
  head: await outcome(fetch(base + "/translatedFile/" + name, {method: "HEAD", mode: "no-cors"})),
  get: await outcome(fetch(base + "/translatedFile/" + name, {mode: "no-cors"})),
}))().then(resolve, error => resolve({error: String(error)}));
"""


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>another site</title><p>hello</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def other_site() -> Iterator[str]:
    """A page on another loopback port: another origin than the server's."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _Access(logging.Handler):
    """(method, path, status) of every access-log record."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen: list[tuple[str, str, int]] = []

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5:
            self.seen.append((str(args[1]), str(args[2]), int(str(args[4]))))


@pytest.fixture
def access() -> Iterator[_Access]:
    logger = logging.getLogger("uvicorn.access")
    handler, level = _Access(), logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_the_plugin_in_geckos_privileged_context_is_served(
    srv: RunningServer, tmp_path: Path
) -> None:
    """Origin: hardening, issue 20 item 10 (Zotero's privileged requests)."""
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", llm_api=LLM_API)
    with gecko(tmp_path) as browser:
        browser.set_context(browser.CONTEXT_CHROME)
        result = browser.execute_async_script(
            PLUGIN_SCRIPT, script_args=[srv.url, body], script_timeout=SCRIPT_TIMEOUT_MS
        )
    assert "error" not in result, result
    assert result["translate"] == 200 and result["tasks"] == 200, result
    assert API_KEY not in result["tasksText"]
    files = result["files"]
    assert sorted(f["name"].rsplit("-", 1)[-1] for f in files) == ["dual.pdf", "mono.pdf"]
    for file in files:
        assert (file["head"], file["get"], file["pdf"]) == (200, 200, True), file
    assert srv.services.outputs.names() == []  # each downloaded once, then deleted


def test_a_page_of_another_origin_is_refused(
    srv: RunningServer, tmp_path: Path, other_site: str, access: _Access
) -> None:
    """Origin: hardening, issue 20 item 10 (Zotero's privileged requests)."""
    (name,) = srv.services.outputs.save("victim", [(OutputKind.MONO, b"%PDF-1.7 victim")])
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", llm_api=LLM_API)
    with gecko(tmp_path) as browser:
        browser.set_context(browser.CONTEXT_CONTENT)
        browser.navigate(other_site)
        result = browser.execute_async_script(
            PAGE_SCRIPT, script_args=[srv.url, name, body], script_timeout=SCRIPT_TIMEOUT_MS
        )
    assert "error" not in result, result
    # What needs a CORS preflight never leaves the browser; the rest reaches the server...
    assert result["jsonPost"] == "blocked" and result["tasks"] == "blocked", result
    assert (result["plainPost"], result["head"], result["get"]) == ("sent",) * 3, result
    # ...which refuses it.
    answered = {(method, path.split("?")[0]): status for method, path, status in access.seen}
    assert answered[("POST", "/translate")] == 403, access.seen
    assert answered[("HEAD", f"/translatedFile/{name}")] == 403, access.seen
    assert answered[("GET", f"/translatedFile/{name}")] == 403, access.seen
    assert srv.services.outputs.names() == [name]  # not downloaded, not deleted
    assert srv.services.registry.all_jobs() == []  # nothing queued

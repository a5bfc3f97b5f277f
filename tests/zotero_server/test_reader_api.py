"""Reader plugins' endpoints (issue 37): LibreTranslate, DeepLX/DeepL JSON-RPC and OpenAI chat on
the server's port, through the fake vLLM, with the real clients: a Node stand-in for Translate for
Zotero's three self-hosted services (tests/reader_clients, written from their request shapes: the
plugin is AGPL) and the ``openai`` package."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openai
import pytest
from pydantic import SecretStr

from common.settings import Settings
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.gpu import comfyui_argv, running
from tests.helpers.manager import Rig
from tests.helpers.paths import TESTS
from tests.helpers.server import RunningServer, fake_llm_fixture, run_app, srv_fixture
from tests.helpers.vllm import FakeVLLMProcess

__all__ = ["fake_llm_fixture", "srv_fixture"]

CLIENT = TESTS / "reader_clients" / "translate_for_zotero.mjs"
#: Translate for Zotero's default Custom GPT prompt (its prefs.js), the shape a user keeps.
PLUGIN_PROMPT = (
    "As an academic expert with specialized knowledge in various fields, please provide a "
    "proficient and precise translation from ${langFrom} to ${langTo} of the academic text "
    "enclosed in 🔤. It is crucial to maintaining the original phrase or sentence and ensure "
    "accuracy while utilizing the appropriate language. The text is as follows:  🔤 "
    "${sourceText} 🔤  Please provide the translated result without any additional "
    "explanation and remove 🔤."
)
TEXT = "The encoder maps every token to a vector."


def node_client(job: dict[str, Any]) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    done = subprocess.run(
        [node, str(CLIENT), json.dumps(job)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_libretranslate_client(srv: RunningServer) -> None:
    job = {"service": "libretranslate", "endpoint": srv.url, "raw": TEXT}
    out = node_client(job | {"langfrom": "en-US", "langto": "de-DE"})
    assert out == {"result": pseudo_translate(TEXT, "de")}
    # The same selection again: from the cache, and counted as such.
    node_client(job | {"langfrom": "en-US", "langto": "de-DE"})
    metrics = srv.client().get("/metrics").text
    assert 'reader_requests_total{outcome="translated",protocol="libretranslate"} 1.0' in metrics
    assert 'reader_requests_total{outcome="cached",protocol="libretranslate"} 1.0' in metrics


def test_deeplx_client_speaks_jsonrpc(srv: RunningServer) -> None:
    """The plugin's "DeepLX" sends DeepL's web JSON-RPC with a browser extension's Origin and
    Referer; both the paths a user may enter answer it."""
    for path in ("/jsonrpc", "/translate", "/deeplx/translate"):
        out = node_client(
            {
                "service": "deeplx",
                "endpoint": srv.url + path,
                "raw": TEXT,
                "langfrom": "en-US",
                "langto": "zh-CN",
            }
        )
        assert out == {"result": pseudo_translate(TEXT, "zh-Hans")}, path


def test_custom_gpt_client_default_prompt(srv: RunningServer) -> None:
    """Custom GPT with the plugin's own prompt: the text between the 🔤 is translated (not the
    prompt), into the language the prompt names; streamed and not."""
    for stream in (True, False):
        out = node_client(
            {
                "service": "customgpt",
                "endpoint": srv.url + "/v1/chat/completions",
                "raw": TEXT,
                "langfrom": "en-US",
                "langto": "ja-JP",
                "secret": "anything",
                "model": "translategemma",
                "prompt": PLUGIN_PROMPT,
                "stream": stream,
            }
        )
        assert out == {"result": pseudo_translate(TEXT, "ja")}


def test_deeplx_native_body(srv: RunningServer) -> None:
    with srv.client() as client:
        reply = client.post(
            "/translate", json={"text": TEXT, "source_lang": "EN", "target_lang": "ZH-HANT"}
        )
    assert reply.status_code == 200
    body = reply.json()
    assert body["code"] == 200 and body["target_lang"] == "ZH-HANT"
    assert body["data"] == pseudo_translate(TEXT, "zh-Hant")


def test_openai_client_chat(srv: RunningServer) -> None:
    client = openai.OpenAI(base_url=srv.url + "/v1", api_key="unused")
    chat = client.chat.completions.create(
        model="any",
        messages=[
            {"role": "system", "content": "You translate scientific text into German."},
            {"role": "user", "content": "Attention weights α sum to one (see https://x.org)."},
        ],
    )
    answer = chat.choices[0].message.content or ""
    assert "α" in answer and "https://x.org" in answer  # math and URLs kept as they were
    sent = pseudo_translate("Attention weights {v1} sum to one (see {v2}).", "de")
    assert answer == sent.replace("{v1}", "α").replace("{v2}", "https://x.org")
    stream = client.chat.completions.create(
        model="any",
        messages=[{"role": "user", "content": "Translate into Korean:\n" + TEXT}],
        stream=True,
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text == pseudo_translate(TEXT, "ko")


def test_a_streamed_chat_answer_comes_piece_by_piece(
    srv: RunningServer, fake_llm: FakeVLLMProcess
) -> None:
    """``stream: true`` sent the whole translation in one chunk once it was known; the pieces
    now come as the model makes them, a placeholder never shown half put back, and the whole
    answer is cached (asked again, it comes in one piece, without the model)."""
    client = openai.OpenAI(base_url=srv.url + "/v1", api_key="unused")
    ask = "Translate into German: The weights α of every layer sum to one, as https://x.org says."

    def pieces() -> list[str]:
        stream = client.chat.completions.create(
            model="any", messages=[{"role": "user", "content": ask}], stream=True
        )
        return [
            c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content
        ]

    first = pieces()
    sent = pseudo_translate("The weights {v1} of every layer sum to one, as {v2} says.", "de")
    whole = sent.replace("{v1}", "α").replace("{v2}", "https://x.org")
    assert "".join(first) == whole
    assert len(first) >= 4, first  # word by word, not one chunk
    assert not any("{" in piece or "v1" in piece for piece in first)
    asked = len(fake_llm.requests(status=200))
    assert pieces() == [whole]  # from the cache
    assert len(fake_llm.requests(status=200)) == asked


def test_libretranslate_html_keeps_tags(srv: RunningServer) -> None:
    html = '<p class="x">The <a href="https://x.org">encoder</a> maps tokens.</p>'
    with srv.client() as client:
        reply = client.post(
            "/translate",
            json={"q": [html, "Second."], "source": "auto", "target": "fr", "format": "html"},
        )
    assert reply.status_code == 200, reply.text
    first, second = reply.json()["translatedText"]
    assert first.startswith('<p class="x">') and '<a href="https://x.org">' in first
    assert first.endswith("</p>") and "encoder" not in first
    assert second == pseudo_translate("Second.", "fr")
    assert reply.json()["detectedLanguage"]["language"] == "en"


def test_paper_body_still_reaches_the_paper_route(srv: RunningServer) -> None:
    """A small zotero-pdf2zh body on /translate is the paper route's (its own error), never a
    reader's."""
    with srv.client() as client:
        reply = client.post("/translate", json={"fileName": "a.pdf", "fileContent": "xx"})
    assert reply.status_code == 400
    assert reply.json()["status"] == "error"


def test_limits_and_errors_in_each_shape(srv: RunningServer) -> None:
    big = "word " * 2000  # 10 000 characters, over ZT_READER_MAX_CHARS (8000)
    with srv.client() as client:
        libre = client.post("/translate", json={"q": big, "source": "en", "target": "de"})
        assert libre.status_code == 413 and "ZT_READER_MAX_CHARS" in libre.json()["error"]
        bad = client.post("/translate", json={"q": "hi", "source": "en", "target": "xx"})
        assert bad.status_code == 400 and "unsupported language" in bad.json()["error"]
        chat = client.post("/v1/chat/completions", json={"model": "m", "messages": []})
        assert chat.status_code == 400 and "messages" in chat.json()["error"]["message"]
        languages = client.get("/languages").json()
        assert {"code": "de", "name": "German"}.items() <= languages[5].items() or any(
            entry["code"] == "de" and "ko" in entry["targets"] for entry in languages
        )


def test_web_guard_and_token(settings: Settings, fake_llm: FakeVLLMProcess) -> None:
    configured = settings.model_copy(
        update={"llm_base_url": fake_llm.base_url, "api_token": SecretStr("s3cret")}
    )
    with run_app(configured) as srv, srv.client() as client:
        body = {"q": TEXT, "source": "en", "target": "de"}
        assert client.post("/translate", json=body).status_code == 401
        assert client.post("/t/s3cret/translate", json=body).status_code == 200
        # Another web site in the user's browser may not use the GPU.
        evil = client.post(
            "/t/s3cret/translate", json=body, headers={"Origin": "https://evil.example"}
        )
        assert evil.status_code == 403
        chat = openai.OpenAI(base_url=srv.url + "/v1", api_key="wrong")
        with pytest.raises(openai.AuthenticationError):
            chat.chat.completions.create(model="m", messages=[{"role": "user", "content": "Hi"}])
        # The token as the API key (what Custom GPT sends as Authorization: Bearer).
        good = openai.OpenAI(base_url=srv.url + "/v1", api_key="s3cret")
        answer = good.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Translate into German: Hi."}]
        )
        assert answer.choices[0].message.content == pseudo_translate("Hi.", "de")
        assert client.get("/languages").status_code == 200  # open, like /health


def test_busy_gpu_names_holder(tmp_path: Path) -> None:
    """With ComfyUI on the GPU (and no vLLM yet) a selection waits ZT_READER_WAIT_S, then gets
    a 503 with Retry-After in its own protocol's error shape, naming the holder."""
    rig = Rig(tmp_path)
    try:
        with running(comfyui_argv(rig.tmp)) as comfy:
            rig.smi.set(processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
            settings = rig.settings(reader_wait_s=0.5, gpu_poll_s=0.1)
            with run_app(settings) as srv, srv.client() as client:
                body = {"q": TEXT, "source": "en", "target": "de"}
                reply = client.post("/translate", json=body)
                assert reply.status_code == 503, reply.text
                assert "the GPU is used by ComfyUI" in reply.json()["error"]
                assert reply.headers.get("retry-after")
                chat = client.post(
                    "/v1/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": TEXT}]},
                )
                assert chat.status_code == 503
                assert "the GPU is used by ComfyUI" in chat.json()["error"]["message"]
                assert rig.launch_count() == 0
    finally:
        rig.reap()

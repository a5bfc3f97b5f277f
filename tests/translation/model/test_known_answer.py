"""Criterion 6 of issue 37: a wake that really worked. The real server and manager, the fake vLLM
they launch; ``--fake-garbage-after-wake`` makes a woken engine pass ``/health`` and the
one-token probe while answering garbage, as real woken engines have been seen to."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.manager import Rig
from tests.helpers.server import RunningServer, run_app
from translation.model.known_answer import RECORD_FILE, SENTENCE

TOKEN = "known-answer-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TEXT = "The decoder attends to every position of the encoder output."


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    r.smi.set(
        discover=[{"cmdline_contains": [r.token, "serve"], "used_gpu_memory": 28000, "gpu": 0}]
    )
    yield r
    r.reap()


def select(srv: RunningServer, text: str) -> str:
    """A selection through LibreTranslate's body (into the server's target, Korean)."""
    with srv.client(headers=AUTH) as client:
        reply = client.post("/translate", json={"q": text, "source": "en", "target": "ko"})
    assert reply.status_code == 200, reply.text
    return str(reply.json()["translatedText"])


def sleep_now(srv: RunningServer) -> None:
    answer = httpx.post(f"{srv.url}/api/vllm/sleep", headers=AUTH, timeout=30)
    assert "asleep" in answer.json()["message"], answer.text


def probes(srv: RunningServer) -> dict[str, float]:
    text = httpx.get(f"{srv.url}/metrics", headers=AUTH, timeout=10).text
    prefix = "zt_vllm_known_answer_probes_total{outcome="
    return {
        line[len(prefix) + 1 : line.index('"}')]: float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith(prefix)
    }


@pytest.mark.slow
def test_a_woken_engine_writing_garbage_is_replaced(rig: Rig) -> None:
    settings = rig.settings(
        vllm_idle_action="sleep",
        vllm_command=rig.vllm_command("--fake-garbage-after-wake", load_s=0.5),
        api_token=SecretStr(TOKEN),
    )
    with run_app(settings) as srv:
        assert select(srv, TEXT) == pseudo_translate(TEXT, "ko")
        sleep_now(srv)  # the known answer is recorded first, from the healthy engine
        record = json.loads((rig.data_dir / RECORD_FILE).read_text())
        assert list(record.values()) == [pseudo_translate(SENTENCE, "ko")]
        # The next selection wakes it; the woken engine writes garbage, so it is stopped and
        # a fresh one started: the user gets a real translation.
        second = "Every layer normalises its input before the attention."
        assert select(srv, second) == pseudo_translate(second, "ko")
        assert rig.launch_count() == 2
        counts = probes(srv)
        assert counts["recorded"] == 1 and counts["mismatched"] == 1
        # The fresh engine records its own answer before its first sleep, and its wake matches.
        sleep_now(srv)
        assert counts["recorded"] == 1  # (the read above, before this sleep)
        assert probes(srv)["recorded"] == 2


def test_a_sound_wake_matches(rig: Rig) -> None:
    settings = rig.settings(
        vllm_idle_action="sleep",
        vllm_command=rig.vllm_command(load_s=0.5),
        api_token=SecretStr(TOKEN),
    )
    with run_app(settings) as srv:
        select(srv, TEXT)
        sleep_now(srv)
        second = "A second selection wakes the engine."
        assert select(srv, second) == pseudo_translate(second, "ko")
        assert rig.launch_count() == 1
        counts = probes(srv)
        assert counts["matched"] == 1 and counts["mismatched"] == 0

"""Issue 20, item 9: tokens and secrets in the shapes the first pass missed.

Security bar: ``test_tokens_are_masked_in_the_access_log_and_404_bodies`` (item 9, tokens in
percent-encoded query keys and failed paths) and ``test_mask_secrets_second_pass`` (item 9,
secret shapes of command lines).

The access log showed ``?%74oken=<token>`` and ``/T/<token>/...`` in clear, and the 404 body
echoed the path it did not find. Command lines leaked ``-H "Authorization: Bearer …"``, JSON
given as an option, ``--apikey:x`` and a secret value that starts with ``-``.
"""

from __future__ import annotations

import logging

import pytest
from pydantic import SecretStr

from common.redact import MASK, mask_argv, mask_secrets
from common.settings import Settings
from tests.helpers.server import run_app

TOKEN = "s3cret-tok"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_tokens_are_masked_in_the_access_log_and_404_bodies(settings: Settings) -> None:
    guarded = settings.model_copy(update={"api_token": SecretStr(TOKEN)})
    access = logging.getLogger("uvicorn.access")
    records = _Records()
    with run_app(guarded) as srv:
        level = access.level
        access.setLevel(logging.INFO)  # the test server runs at "warning"
        access.addHandler(records)
        try:
            with srv.client() as client:
                assert client.get(f"/api/history?%74oken={TOKEN}").status_code == 200
                assert client.get(f"/api/history?%54OKEN=%73{TOKEN[1:]}").status_code == 401
                not_found = [
                    client.get(f"/T/{TOKEN}/api/tasks"),
                    client.get(f"/nowhere/{TOKEN}"),
                    client.get(f"/nowhere/%73{TOKEN[1:]}/x"),
                    client.get(f"/api/tasks/{TOKEN}", params={"token": TOKEN}),
                    client.get(f"/translatedFile/{TOKEN}.pdf", params={"token": TOKEN}),
                ]
        finally:
            access.removeHandler(records)
            access.setLevel(level)
    for response in not_found:
        assert response.status_code == 404
        assert "not found" in response.json()["message"] or "no such" in response.text
        assert TOKEN not in response.text, response.text
    logged = "\n".join(records.lines)
    assert logged.count("/api/history") == 2 and "/nowhere/" in logged, logged
    assert f"%74oken={MASK}" in logged and f"/T/{MASK}/api/tasks" in logged, logged
    assert TOKEN not in logged and TOKEN[1:] not in logged, logged


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            'curl -H "Authorization: Bearer sk-abc123" http://h/v1',
            f'curl -H "Authorization: Bearer {MASK}" http://h/v1',
        ),
        ("curl -H X-Api-Key:sk-abc123 http://h", f"curl -H X-Api-Key:{MASK} http://h"),
        (
            """app --config '{"api_key": "sk-abc123", "n": 1}'""",
            f"""app --config '{{"api_key": "{MASK}", "n": 1}}'""",
        ),
        ('app --config {"hf_token":"hf_abc123"}', f'app --config {{"hf_token":"{MASK}"}}'),
        ("app --apikey:sk-abc123 --port 1", f"app --apikey:{MASK} --port 1"),
        ("app --api-key -sk-abc123 --port 1", f"app --api-key {MASK} --port 1"),
        ("app --use-auth -v --port 1", "app --use-auth -v --port 1"),  # flags stay
    ],
)
def test_mask_secrets_second_pass(command: str, expected: str) -> None:
    assert mask_secrets(command) == expected
    assert mask_secrets(expected) == expected  # idempotent


def test_an_authorization_header_argument_is_masked_in_an_argv() -> None:
    argv = ["curl", "-H", "Authorization: Bearer sk-abc123", "-H", "Accept: */*", "http://h"]
    assert mask_argv(argv) == [
        "curl", "-H", f"Authorization: Bearer {MASK}", "-H", "Accept: */*", "http://h"
    ]  # fmt: skip

"""The request body: bounded work per request. Bodies are the plugin's flat object
(millions of keys or nesting are refused before parsing), and the PDF is cut out of the body
and decoded in steps."""

from __future__ import annotations

import json
from typing import Any

import pytest

from common.errors import InputError, RequestShapeError
from common.language import Language
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import (
    PARAGRAPHS,
    RunningServer,
    fake_llm_fixture,
    plugin_body,
    srv_fixture,
)
from zotero_server import file_content
from zotero_server.file_content import decode_file_content
from zotero_server.protocol import Operation, parse_request
from zotero_server.request_body import parse_body

__all__ = ["fake_llm_fixture", "srv_fixture"]


def encoded(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()


# --- the body's shape -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {},  # zotero-pdf2zh 4.x: ~40 string settings
        {"asyncJob": True, "clientProtocol": "async"},  # today's plugin: a JSON boolean
        {"fileName": "", "filePath": "C:\\Users\\me\\Zotero\\storage\\AB12\\paper.pdf",
         "skip_last_pages": "0", "threadNum": 4},  # v2.x: snake case, a path, a number
    ],
)  # fmt: skip
def test_every_plugin_generation_body_is_accepted(fields: dict[str, Any]) -> None:
    """Origin: hardening, issue 12 finding 4 (bounded work per request)."""
    body = parse_body(
        encoded(plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", **fields))
    )
    request = parse_request(
        Operation.TRANSLATE,
        body,
        {},
        default_source=Language.parse("en"),
        default_target=Language.parse("ko"),
        max_bytes=10**7,
    )
    assert request.file_name == "paper.pdf" and request.pdf.startswith(b"%PDF")


def test_the_pdf_is_cut_out_of_the_body_and_decoded_in_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Origin: hardening, issue 12 finding 4 (bounded work per request)."""
    monkeypatch.setattr(file_content, "_CHUNK", 12)  # many steps, padding in the last one
    pdf = small_paper(paragraphs=PARAGRAPHS)
    body = parse_body(encoded(plugin_body(pdf, "paper.pdf")))
    assert not isinstance(body["fileContent"], str)  # never parsed as a JSON string
    assert decode_file_content(body["fileContent"], 10**7) == pdf
    # Line breaks arrive JSON-escaped: the JSON parser takes that value, with the same result.
    wrapped = plugin_body(pdf, "paper.pdf")["fileContent"]
    wrapped = "\n".join(wrapped[i : i + 76] for i in range(0, len(wrapped), 76))
    body = parse_body(encoded({"fileName": "paper.pdf", "fileContent": wrapped}))
    assert decode_file_content(body["fileContent"], 10**7) == pdf
    with pytest.raises(InputError, match="not valid base64"):
        decode_file_content(b"QUJD" * 10 + b"!!" + b"QUJD", 10**7)


def test_a_body_of_many_keys_is_refused_before_it_is_parsed() -> None:
    """Origin: hardening, issue 12 finding 4 (bounded work per request)."""
    raw = b"{" + b",".join(b'"k%d":"v"' % i for i in range(100_000)) + b"}"
    with pytest.raises(RequestShapeError, match="flat JSON object"):
        parse_body(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 100_000 + b"]" * 100_000,
        encoded({"fileName": "paper.pdf", "options": {"mono": "true"}}),
        encoded({"fileName": "paper.pdf", "pages": ["1", "2"]}),
        encoded({f"k{i}": "v" for i in range(500)}),
        b'"just a string"',
    ],
)
def test_anything_but_a_flat_object_is_a_400(raw: bytes) -> None:
    """Origin: hardening, issue 12 finding 4 (bounded work per request)."""
    with pytest.raises(InputError):
        parse_body(raw)


def test_the_server_answers_a_body_of_many_keys_with_a_400(srv: RunningServer) -> None:
    """Origin: hardening, issue 12 finding 4 (bounded work per request)."""
    raw = b"{" + b",".join(b'"k%d":"v"' % i for i in range(300_000)) + b"}"
    with srv.client() as client:
        answer = client.post(
            "/translate", content=raw, headers={"content-type": "application/json"}
        )
        assert answer.status_code == 400
        assert answer.json()["errorType"] == "BadRequestBody"
        assert client.get("/health").status_code == 200


# --- admission --------------------------------------------------------------------------------

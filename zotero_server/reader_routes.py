"""The reader plugins' endpoints: selections, annotations and titles through the same GPU.

Translate for Zotero (windingwind/zotero-pdf-translate) and other reader plugins translate a
few sentences at a time, in the protocols of LibreTranslate, DeepLX (and DeepL's web JSON-RPC,
which its "DeepLX" service sends) and OpenAI chat. Every such request, whatever its protocol:

1. is small: at most ``ZT_READER_MAX_CHARS`` characters (413 otherwise), its body read with
   a bound and a stall timeout; the web guard and ``ZT_API_TOKEN`` apply as everywhere;
2. calls the gate's ``ensure_ready`` (start, wake, wait for a busy GPU) for at most
   ``ZT_READER_WAIT_S`` seconds, then fails with 503 and ``Retry-After`` in that protocol's own
   error shape, naming who holds the GPU ("the GPU is used by ComfyUI"); a start or wake that
   takes longer goes on in the background for the next request;
3. is protected, cached and glossary-checked like a paper's paragraph
   (``Translator.translate_snippet``), and sent in the interactive fair-share class, ahead of
   queued paragraphs (``translation.model.fair_slots``);
4. is counted in ``/metrics`` by protocol and outcome.

``POST /translate`` is shared with the zotero-pdf2zh plugin: :func:`reader_answer` reads a
small body (``Content-Length`` within the reader limit) and answers it when its keys name a
reader protocol (``reader_protocols.kind_of``); anything else goes on to the paper route, which
reads the same bytes again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from common.errors import (
    GPUBusyError,
    GPUStatusUnknownError,
    GPUUnavailableError,
    InputError,
    LLMUnavailableError,
    TooLargeError,
)
from common.language import LANGUAGES, Language
from vllm_manager.decision import GPUDecision, foreign_processes, gib
from vllm_manager.gpu_wait import holder_name
from zotero_server import reader_protocols as rp
from zotero_server.api_token import require_token
from zotero_server.connection_limits import timed_chunks
from zotero_server.http_errors import (
    error_type_of,
    public_message,
    retry_after_for,
    status_for,
)
from zotero_server.services import Services

log = logging.getLogger(__name__)

#: Most texts one request may carry (a LibreTranslate list, DeepL's ``texts``).
MAX_TEXTS = 64
#: Seconds past ``ZT_READER_WAIT_S`` for the health check and the answer's first steps.
READY_GRACE_S = 2.0


def reader_body_limit(max_chars: int) -> int:
    """The most bytes a reader request's body may take: the text JSON-escaped at worst (12
    bytes for a character outside the BMP) plus room for the other fields and a prompt."""
    return 16 * 1024 + 12 * max_chars


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


# --- reading ----------------------------------------------------------------------------------


async def _read_small(request: Request, limit: int) -> bytes:
    settings = _services(request).settings
    declared = request.headers.get("content-length", "")
    too_large = TooLargeError(
        f"the request is larger than a selection may be ({limit // 1024} KiB;"
        " ZT_READER_MAX_CHARS); translate the paper instead"
    )
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    chunks = timed_chunks(
        request.stream(), settings.request_read_timeout_s, settings.request_read_timeout_s
    )
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise too_large
    return bytes(body)


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InputError("the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    return body


# --- the work every protocol shares -------------------------------------------------------------


async def _holder_line(services: Services) -> str | None:
    """ "the GPU is used by ComfyUI (pid 41, 20.0 GiB)", or None when nobody else holds it."""
    try:
        decision, reading = await asyncio.wait_for(
            services.jobs.manager.start_decision(), READY_GRACE_S
        )
    except Exception:  # the error raised already says what is known
        return None
    status = reading.status if reading is not None else None
    if decision is not GPUDecision.BUSY or status is None:
        return None
    others = foreign_processes(status, services.settings.vllm_keywords)
    if not others:
        return (
            f"the GPU is used by processes nvidia-smi does not list ({gib(status.memory_used_mib)})"
        )
    names = ", ".join(
        f"{holder_name(p.command)} (pid {p.pid}, {gib(p.memory_mib)})" for p in others[:3]
    )
    return f"the GPU is used by {names}"


async def _ensure_ready(services: Services) -> None:
    """The gate's ``ensure_ready`` within ``ZT_READER_WAIT_S`` (see the module docstring)."""
    settings = services.settings
    limit = settings.reader_wait_s
    assert services.gpu_wait is not None  # built by the lifespan with the engine
    wait = services.gpu_wait.ensure_ready(limit_s=max(limit, 0.001))
    try:
        await asyncio.wait_for(wait, limit + READY_GRACE_S)
    except (GPUBusyError, GPUStatusUnknownError) as exc:
        holder = await _holder_line(services)
        if holder is None:
            raise
        raise GPUBusyError(
            f"{holder}; a selection waits at most {limit:g} s (ZT_READER_WAIT_S): try again"
            " when it is free",
            retry_after_s=exc.retry_after_s,
        ) from None
    except TimeoutError:
        holder = await _holder_line(services)
        raise GPUUnavailableError(
            holder + "; try again when it is free"
            if holder
            else f"the translation model is starting or waking (more than {limit:g} s,"
            " ZT_READER_WAIT_S); try again in a moment",
            retry_after_s=15.0,
        ) from None


def _check_size(services: Services, ask: rp.TextAsk) -> None:
    """A selection, not a book: :data:`MAX_TEXTS` texts, ``ZT_READER_MAX_CHARS`` characters."""
    limit = services.settings.reader_max_chars
    if len(ask.texts) > MAX_TEXTS:
        raise InputError(f"at most {MAX_TEXTS} texts per request")
    chars = sum(len(text) for text in ask.texts)
    if chars > limit:
        raise TooLargeError(
            f"{chars} characters is more than a selection may be ({limit},"
            " ZT_READER_MAX_CHARS); translate the paper instead"
        )


async def translate_texts(services: Services, ask: rp.TextAsk) -> tuple[list[str], bool]:
    """``ask``'s texts translated, and whether every one came from the cache (a cached
    selection needs no GPU at all: the model is brought up only for a miss)."""
    _check_size(services, ask)
    translator, glossary = services.translator, services.glossary
    results: list[str] = []
    ready = False
    async with services.jobs.manager.work():
        for text in ask.texts:
            if not text.strip():
                results.append(text)
                continue
            hit = await translator.cached_snippet(
                text, ask.source, ask.target, glossary, html=ask.html
            )
            if hit is not None:
                results.append(hit)
                continue
            if not ready:
                await _ensure_ready(services)
                ready = True
            try:
                answer = await translator.translate_snippet(
                    text, ask.source, ask.target, glossary, html=ask.html
                )
            except LLMUnavailableError:
                await _ensure_ready(services)  # it went away under us: bring it back, once
                answer = await translator.translate_snippet(
                    text, ask.source, ask.target, glossary, html=ask.html
                )
            results.append(answer)
    return results, not ready


# --- answers and errors, per protocol -------------------------------------------------------------


def _error_json(protocol: str, status: int, message: str, kind: str, body: Any) -> Any:
    if protocol == "libretranslate":
        return {"error": message}
    if protocol == "deeplx":
        return {"code": status, "message": message}
    if protocol == "deepl_jsonrpc":
        rid = body.get("id") if isinstance(body, dict) else None
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": status, "message": message}}
    kinds = {
        400: "invalid_request_error",
        401: "authentication_error",
        413: "invalid_request_error",
    }
    return {
        "error": {
            "message": message,
            "type": kinds.get(status, "server_error" if status >= 500 else "invalid_request_error"),
            "param": None,
            "code": kind,
        }
    }


async def _answer(
    request: Request,
    protocol: str,
    body: Any,
    work: Callable[[Services], Awaitable[tuple[Response, int, bool]]],
) -> Response:
    """Run ``work`` and answer it, or answer its error in ``protocol``'s shape."""
    services = _services(request)
    counts = services.metrics.reader
    try:
        response, chars, cached = await work(services)
    except Exception as exc:
        status = status_for(exc)
        counts.count(protocol, "refused" if status < 500 else "failed")
        if status == 500:
            raise  # the app's handler logs it
        headers = {}
        retry = retry_after_for(exc) if status == 503 else None
        if retry is not None:
            headers["Retry-After"] = str(retry)
        payload = _error_json(protocol, status, public_message(exc), error_type_of(exc), body)
        return JSONResponse(payload, status_code=status, headers=headers)
    counts.count(protocol, "cached" if cached else "translated", chars)
    return response


def _defaults(services: Services) -> tuple[Language, Language]:
    return services.settings.source_lang, services.settings.target_lang


def _deepl_code(lang: Language) -> str:
    return lang.code.upper()


async def reader_answer(request: Request) -> Response | None:
    """The answer to a reader plugin's ``POST /translate``, or None: not one (the zotero-pdf2zh
    plugin's paper, or a body too large to be a selection), left to the paper route."""
    settings = _services(request).settings
    limit = reader_body_limit(settings.reader_max_chars)
    declared = request.headers.get("content-length", "")
    if not declared.isdigit() or int(declared) > limit:
        return None
    raw = await _read_small(request, limit)
    # The paper route reads the body again through ``request.stream()``, which replays it.
    request._body = raw  # Starlette's own cache of the body
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    kind = rp.kind_of(body) if isinstance(body, dict) else None
    if kind is None:
        return None
    return await _protocol_answer(request, kind, body)


async def _protocol_answer(request: Request, kind: str, body: dict[str, Any]) -> Response:
    async def work(services: Services) -> tuple[Response, int, bool]:
        source, target = _defaults(services)
        if kind == "libretranslate":
            ask = rp.libre_ask(body, source, target)
        elif kind == "deeplx":
            ask = rp.deeplx_ask(body, source, target)
        else:
            ask = rp.jsonrpc_ask(body, source, target)
        texts, cached = await translate_texts(services, ask)
        chars = sum(len(text) for text in ask.texts)
        if kind == "libretranslate":
            out: Any = {"translatedText": texts if isinstance(body.get("q"), list) else texts[0]}
            if str(body.get("source", "")).strip().lower() in rp.AUTO:
                out["detectedLanguage"] = {"confidence": 0, "language": ask.source.code}
        elif kind == "deeplx":
            out = {
                "code": 200,
                "id": secrets.randbelow(10**10),
                "data": texts[0] if len(texts) == 1 else texts,
                "alternatives": [],
                "source_lang": _deepl_code(ask.source),
                "target_lang": _deepl_code(ask.target),
                "method": "Free",
            }
        else:
            out = {
                "jsonrpc": "2.0",
                "id": body.get("id"),
                "result": {
                    "texts": [{"text": text, "alternatives": []} for text in texts],
                    "lang": _deepl_code(ask.source),
                    "lang_is_confident": False,
                    "detectedLanguages": {},
                },
            }
        return JSONResponse(out), chars, cached

    return await _answer(request, kind, body, work)


# --- routes of their own -----------------------------------------------------------------------


router = APIRouter()
guarded = APIRouter(dependencies=[Depends(require_token)])


@router.get("/languages")
async def languages() -> list[dict[str, Any]]:
    """LibreTranslate's language list: every language the model covers, to every other."""
    codes = sorted(LANGUAGES)
    return [
        {"code": code, "name": name, "targets": [c for c in codes if c != code]}
        for code, name in sorted(LANGUAGES.items())
    ]


async def _small_json(request: Request) -> dict[str, Any]:
    limit = reader_body_limit(_services(request).settings.reader_max_chars)
    return _json_object(await _read_small(request, limit))


@guarded.post("/jsonrpc")
async def deepl_jsonrpc(request: Request) -> Response:
    """DeepL's web JSON-RPC, as Translate for Zotero's "DeepLX" service sends it."""
    return await _own_path(request, "deepl_jsonrpc")


@guarded.post("/deeplx/translate")
async def deeplx_translate(request: Request) -> Response:
    """DeepLX's ``/translate`` body on a path of its own (or DeepL JSON-RPC: the same client
    setting serves both)."""
    return await _own_path(request, "deeplx")


async def _own_path(request: Request, protocol: str) -> Response:
    try:
        body = await _small_json(request)
    except InputError as exc:
        return await _answer(request, protocol, None, _raise(exc))
    kind = rp.kind_of(body) or protocol
    if kind not in ("deeplx", "deepl_jsonrpc"):
        kind = protocol
    return await _protocol_answer(request, kind, body)


def _raise(exc: Exception) -> Callable[[Services], Awaitable[tuple[Response, int, bool]]]:
    async def work(services: Services) -> tuple[Response, int, bool]:
        raise exc

    return work


@guarded.get("/v1/models")
async def models(request: Request) -> dict[str, Any]:
    """The one model, for clients that list models before they chat."""
    name = _services(request).settings.llm_model
    return {
        "object": "list",
        "data": [{"id": name, "object": "model", "created": 0, "owned_by": "zotero-translate"}],
    }


@guarded.post("/v1/chat/completions")
async def chat_completions(request: Request) -> Response:
    """An ordinary chat request: the text and languages found by ``reader_protocols.chat_ask``,
    sent to the model in TranslateGemma's own format; ``stream: true`` answers as SSE chunks,
    the translation's pieces as the model makes them (:func:`_stream_translation`)."""
    try:
        body = await _small_json(request)
    except InputError as exc:
        return await _answer(request, "openai_chat", None, _raise(exc))

    async def work(services: Services) -> tuple[Response, int, bool]:
        source, target = services.settings.source_lang, services.settings.target_lang
        chat_target = services.settings.chat_target_lang or target
        ask = rp.chat_ask(body, source, chat_target)
        model = body.get("model") if isinstance(body.get("model"), str) else None
        name = model or services.settings.llm_model
        chars = sum(len(text) for text in ask.texts)
        if body.get("stream") is True:
            streamed, cached = await _stream_translation(services, ask, name)
            return streamed, chars, cached
        texts, cached = await translate_texts(services, ask)
        return JSONResponse(_completion(texts[0], name)), chars, cached

    return await _answer(request, "openai_chat", body, work)


def _completion(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-" + secrets.token_hex(12),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


async def _stream_translation(
    services: Services, ask: rp.TextAsk, model: str
) -> tuple[StreamingResponse, bool]:
    """The chat answer as SSE chunks (OpenAI's ``chat.completion.chunk``), each piece of the
    translation as the model makes it (``Translator.stream_snippet``). The checks and the wait
    for the GPU come first, so a refusal is still an HTTP error in the protocol's shape; a
    failure once the stream has begun is an ``error`` event (the openai client raises it)."""
    _check_size(services, ask)
    (text,) = ask.texts
    translator = services.translator
    cached = await translator.cached_snippet(text, ask.source, ask.target, services.glossary)
    if cached is None:
        await _ensure_ready(services)
    base = {
        "id": "chatcmpl-" + secrets.token_hex(12),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return "data: " + json.dumps(base | {"choices": [choice]}, ensure_ascii=False) + "\n\n"

    async def pieces() -> AsyncIterator[str]:
        if cached is not None or not text.strip():
            yield cached if cached is not None else text
            return
        async with services.jobs.manager.work():
            async for piece in translator.stream_snippet(
                text, ask.source, ask.target, services.glossary
            ):
                yield piece

    async def events() -> AsyncIterator[str]:
        yield chunk({"role": "assistant", "content": ""}, None)
        try:
            async for piece in pieces():
                yield chunk({"content": piece}, None)
        except Exception as exc:  # the status line is sent: the error goes in the stream
            status = status_for(exc)
            if status == 500:
                log.exception("a streamed selection failed")
            error = {"message": public_message(exc), "type": error_type_of(exc), "code": status}
            yield "data: " + json.dumps({"error": error}, ensure_ascii=False) + "\n\n"
            return
        yield chunk({}, "stop")
        yield "data: [DONE]\n\n"

    response = StreamingResponse(
        events(), media_type="text/event-stream", headers={"cache-control": "no-cache"}
    )
    return response, cached is not None


router.include_router(guarded)

"""The LLM client: one paragraph in, its translation out, through any OpenAI-compatible server.

Wraps ``openai.AsyncOpenAI`` (its own retries off) with a bounded retry loop and maps every
failure onto ``common.errors``:

- connection refused/reset, timeouts, 502/503/504: retried with exponential backoff and jitter
  within ``max_attempts`` and ``deadline_s``, then ``LLMUnavailableError`` (the pipeline brings
  the server back with ``ensure_ready()`` and resumes);
- 429 and other 5xx: retried the same way, then ``LLMError``;
- 400 "maximum context length": the paragraph is cut at a sentence boundary and the halves are
  translated one after the other; a single sentence that is still too long is an ``LLMError``;
- 401/403 (API key) and 404 (model not served): ``LLMError`` at once, with what to fix;
- an empty answer is asked for once more, then ``LLMError``; ``<think>`` blocks are stripped.

A paper's paragraphs carry vLLM's request ``priority`` (``paper_priority``, 1 by default; lower
is served earlier) and a reader's selection none (0): a vLLM started with ``--scheduling-policy
priority`` (our launch profiles) then takes a selection into its batch ahead of the paragraphs
waiting inside it. A vLLM without that policy refuses any priority but 0 ("Priority scheduling
is not enabled"), and a server that is not vLLM may refuse the field: after a 400 that names it
the client resends without it and leaves it out from then on (one refused request, no retry).

TranslateGemma requests go to ``/v1/chat/completions`` as the content part its template needs.
A vLLM too old for that (before PR #41599) rejects it with a 400 template error; the client then
switches, for good, to ``/v1/completions`` with the prompt rendered by hand
(``prompts.render_translategemma``), which every vLLM version accepts.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import httpx

from common.errors import LLMError, LLMUnavailableError
from common.language import Language
from common.settings import PromptFormat
from translation.model import prompts
from translation.model.cache import CacheKey
from translation.model.sentence_budget import budget_pieces, join_answers
from translation.model.stats import LazyModule, LLMStats, Usage

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletionMessageParam

    from common.settings import Settings
else:
    openai = LazyModule("openai")  # imported at the first request (``_sdk``)

log = logging.getLogger(__name__)

#: vLLM's wording (all versions seen) for a request longer than the served context.
_CONTEXT_ERROR = re.compile(r"maximum context length is (\d+)", re.IGNORECASE)
_PROMPT_TOKENS = re.compile(
    r"\((\d+) in the (?:messages|prompt)|request has (\d+) input tokens", re.IGNORECASE
)
#: Statuses that mean "the server behind this URL is not there right now" (a proxy in front of a
#: stopped vLLM answers 502/504; a vLLM whose engine died answers 503).
_UNAVAILABLE_STATUSES = frozenset({502, 503, 504})
#: A 400 naming the ``priority`` field: vLLM's "Priority scheduling is not enabled" when it
#: schedules first come first served, or a server that knows no such field ("Unrecognized
#: request argument supplied: priority", "extra inputs are not permitted ... priority").
_PRIORITY_REFUSED = re.compile(r"\bpriority\b", re.IGNORECASE)
#: A ready server answers the one-token probe in seconds.
PROBE_TIMEOUT_S = 60.0


def _sdk() -> ModuleType:
    """The openai package, imported on first use: about half a second of its pydantic types
    on a quiet core, paid only by a run that sends a request (a cached paper sends none).
    With it the chat resource every request goes through: the client imports that lazily, at
    its first request, on the event loop (50-90 ms before a paper's first request left)."""
    import openai
    import openai.resources.chat.chat  # its package imports it lazily, at first use

    return openai


_sdk_import: threading.Thread | None = None
_sdk_lock = threading.Lock()


def import_sdk_in_background(*clients: LLMClient) -> None:
    """Start importing the openai package in a thread (once a process), for a caller that will
    send requests soon and waits on something else now (the server as it starts, a job once a
    paragraph is not in the cache, while its worker reads the rest of the paper), so the
    first request does not wait for the whole import. Each of ``clients`` then makes its SDK
    client in that thread too (its connection pool and TLS context: 40-100 ms, which the
    first request otherwise spent on the event loop)."""
    global _sdk_import
    with _sdk_lock:
        if _sdk_import is None:
            _sdk_import = threading.Thread(target=_sdk, name="import-openai", daemon=True)
            _sdk_import.start()
        importing = _sdk_import
    waiting = [c for c in clients if c._sdk_client is None]
    if waiting:

        def make() -> None:
            importing.join()
            for client in waiting:
                client._make_sdk_client()

        threading.Thread(target=make, name="make-openai-client", daemon=True).start()


class _TooLong(Exception):
    """The piece does not fit the context (or its answer was cut off): split it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class _Answer:
    text: str
    finish_reason: str | None
    usage: Usage | None = None


class LLMClient:
    """Translates text with one model on one OpenAI-compatible server.

    Without ``http_client`` the client keeps its own connection pool (the openai package's
    client), which is what the server does: one pool per host, sized by that host's limit.
    An ``http_client`` given (tests) stays the caller's and ``aclose()`` leaves it open.
    ``backoff_s``/``backoff_max_s`` shape the retry delays (attempt n waits about
    ``backoff_s * 2**(n-1)``, jittered, at most ``backoff_max_s`` or the server's
    ``Retry-After``); no delay ever runs past ``deadline_s``.
    A text over ``max_request_tokens`` is sent as runs of whole sentences
    (``translation.model.sentence_budget``); None sends every text whole.
    ``paper_priority`` is the vLLM ``priority`` of a paper's paragraphs (``translate(...,
    paper=True)``); 0 sends none (module docstring).
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None,
        prompt_format: PromptFormat | str,
        timeout_s: float,
        deadline_s: float,
        max_attempts: int,
        http_client: httpx.AsyncClient | None = None,
        backoff_s: float = 0.5,
        backoff_max_s: float = 10.0,
        max_request_tokens: int | None = None,
        paper_priority: int = 0,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.prompt_format = PromptFormat(prompt_format)
        self._timeout_s = timeout_s
        self._deadline_s = deadline_s
        self._max_attempts = max_attempts
        self._backoff_s = backoff_s
        self._backoff_max_s = backoff_max_s
        self._max_request_tokens = max_request_tokens
        self._owns_http = http_client is None
        self._http_client = http_client
        # vLLM ignores the key when started without --api-key; the openai package needs one.
        self._api_key = api_key or "EMPTY"
        # Made at the first request, or ahead of it (``import_sdk_in_background``).
        self._sdk_client: openai.AsyncOpenAI | None = None
        self._sdk_client_lock = threading.Lock()
        self._use_completions = False
        self._paper_priority = paper_priority  # 0 once the server refused it
        self._random = random.Random()
        self.stats = LLMStats()

    @property
    def _openai(self) -> openai.AsyncOpenAI:
        return self._sdk_client or self._make_sdk_client()

    def _make_sdk_client(self) -> openai.AsyncOpenAI:
        """The SDK client, made once from any thread (a request waits for one being made
        elsewhere rather than make a second). Nothing in it is bound to an event loop yet."""
        with self._sdk_client_lock:
            if self._sdk_client is None:
                self._sdk_client = _sdk().AsyncOpenAI(
                    base_url=self.base_url,
                    api_key=self._api_key,
                    max_retries=0,
                    timeout=self._timeout_s,
                    # openai >= 3 is typed for httpx2 but takes an httpx.AsyncClient at run time.
                    http_client=cast("Any", self._http_client),
                )
            return self._sdk_client

    @classmethod
    def from_settings(
        cls, settings: Settings, http_client: httpx.AsyncClient | None = None
    ) -> LLMClient:
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        return cls(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=key,
            prompt_format=settings.prompt_format,
            timeout_s=settings.llm_timeout_s,
            deadline_s=settings.llm_retry_deadline_s,
            max_attempts=settings.llm_max_attempts,
            http_client=http_client,
            max_request_tokens=settings.request_max_tokens,
            paper_priority=settings.llm_paper_priority,
        )

    def cache_key(self, text: str, source_lang: Language, target_lang: Language) -> CacheKey:
        """The cache key of a translation by this client (the languages by the model's codes)."""
        return CacheKey(
            model=self.model,
            prompt=prompts.prompt_version(self.prompt_format),
            source_lang=source_lang.code,
            target_lang=target_lang.code,
            text=text,
        )

    async def translate(
        self, text: str, source_lang: Language, target_lang: Language, *, paper: bool = False
    ) -> str:
        """The translation of ``text``, without reasoning or surrounding whitespace; ``paper``:
        one of a paper's paragraphs (sent with ``paper_priority``), else a person waits for it.

        Raises ``LLMUnavailableError`` when the server cannot be reached within the retry
        bounds, and ``LLMError`` for every other failure. Blank text returns "" with no request.
        """
        if not text.strip():
            return ""
        text = text.strip()
        budget = self._max_request_tokens
        pieces = [text] if budget is None else budget_pieces(text, budget)
        priority = self._paper_priority if paper else 0
        try:
            # One piece after the other: the caller's concurrency slot covers them all.
            answers = [
                await self._translate_piece(piece, source_lang, target_lang, priority)
                for piece in pieces
            ]
        except LLMError as exc:
            self.stats.gave_up(exc)
            raise
        return join_answers(answers, target_lang)

    async def probe(self, source_lang: Language, target_lang: Language) -> str | None:
        """One one-token translation of "Hello.", not retried: None when the server answered
        sensibly, else what went wrong (a line for a log). Never raises for a failure of the
        server. The request has the shape :meth:`translate` sends (TranslateGemma: the content
        part, or the rendered prompt on ``/v1/completions`` for a vLLM that rejects it)."""
        while True:
            try:
                answer = await self._send("Hello.", source_lang, target_lang, 1, PROBE_TIMEOUT_S)
            except openai.APIStatusError as exc:
                if exc.status_code == 400 and self._should_fall_back(exc):
                    continue
                return f"probe answered {exc.status_code}: {_server_message(exc)[:200]}"
            except openai.APIError as exc:
                return f"probe failed: {_describe(exc)}"
            if answer.finish_reason not in ("stop", "length"):
                return "probe: no sensible answer"
            return None

    async def answer_once(
        self, text: str, source_lang: Language, target_lang: Language, max_tokens: int = 64
    ) -> tuple[str | None, str | None]:
        """``(answer, None)`` for one request, not retried, not split, not counted; ``(None,
        problem)`` when the server failed (never raises for that). The known-answer probe's
        request (``translation.model.known_answer``): temperature 0, as every request."""
        while True:
            try:
                answer = await self._send(
                    text, source_lang, target_lang, max_tokens, PROBE_TIMEOUT_S
                )
            except openai.APIStatusError as exc:
                if exc.status_code == 400 and self._should_fall_back(exc):
                    continue
                return None, f"answered {exc.status_code}: {_server_message(exc)[:200]}"
            except openai.APIError as exc:
                return None, f"failed: {_describe(exc)}"
            return prompts.strip_think(answer.text), None

    @property
    def streams(self) -> bool:
        """Whether :meth:`stream` hands out the answer as it comes: TranslateGemma's answer is
        the translation alone; a chat model's may open with reasoning, which only the whole
        answer can have taken off (``prompts.strip_think``)."""
        return self.prompt_format is PromptFormat.TRANSLATEGEMMA

    async def stream(
        self, text: str, source_lang: Language, target_lang: Language
    ) -> AsyncIterator[str]:
        """The translation of ``text`` as the model makes it, in pieces (a reader's selection
        with ``stream: true``). One request, neither retried nor split: the caller recovers
        from a failure before the first piece (:meth:`translate`); after it, ``LLMError``.
        Raises as :meth:`translate` does; counted in ``self.stats`` when it ends."""
        text = text.strip()
        max_tokens = 2 * prompts.estimate_tokens(text) + 64
        timeout = self._timeout_s
        pieces: list[str] = []
        finish: str | None = None
        try:
            if self._use_completions:
                completions = await self._openai.completions.create(
                    model=self.model,
                    prompt=prompts.render_translategemma(text, source_lang, target_lang),
                    max_tokens=max_tokens,
                    temperature=0,
                    timeout=timeout,
                    stream=True,
                )
                async for chunk in completions:
                    for choice in chunk.choices[:1]:
                        finish = choice.finish_reason or finish
                        if choice.text:
                            pieces.append(choice.text)
                            yield choice.text
            else:
                messages = prompts.translategemma_messages(text, source_lang, target_lang)
                chat = await self._openai.chat.completions.create(
                    model=self.model,
                    messages=cast("list[ChatCompletionMessageParam]", messages),
                    max_tokens=max_tokens,
                    temperature=0,
                    timeout=timeout,
                    stream=True,
                )
                async for part in chat:
                    for delta in part.choices[:1]:
                        finish = delta.finish_reason or finish
                        if delta.delta.content:
                            pieces.append(delta.delta.content)
                            yield delta.delta.content
        except openai.APIConnectionError as exc:
            self.stats.failed(exc)
            raise LLMUnavailableError(f"the LLM server went away: {_describe(exc)}") from None
        except openai.APIStatusError as exc:
            self.stats.failed(exc)
            raise self._rejected(exc) from None
        except openai.APIError as exc:
            self.stats.failed(exc)
            raise LLMError(f"unexpected answer from the LLM server: {exc}") from None
        self.stats.answered("".join(pieces), finish, None)
        if finish == "length":
            raise LLMError(f"the model's answer was cut off at {max_tokens} tokens")

    async def aclose(self) -> None:
        """Close the HTTP connections, unless the ``http_client`` was the caller's."""
        if self._owns_http and self._sdk_client is not None:
            await self._sdk_client.close()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"LLMClient({self.base_url!r}, model={self.model!r}, {self.prompt_format.value})"

    # --- splitting ---------------------------------------------------------------------------

    async def _translate_piece(
        self, text: str, source_lang: Language, target_lang: Language, priority: int
    ) -> str:
        try:
            return await self._complete(text, source_lang, target_lang, priority)
        except _TooLong as exc:
            halves = prompts.split_in_two(text)
            if halves is None:
                raise LLMError(
                    f"cannot translate a single sentence of {len(text)} characters: {exc.reason}"
                ) from None
            log.info("splitting a %d-character paragraph: %s", len(text), exc.reason)
            # One half after the other: the caller's concurrency slot covers both.
            left = await self._translate_piece(halves[0], source_lang, target_lang, priority)
            right = await self._translate_piece(halves[1], source_lang, target_lang, priority)
            return prompts.join_pieces(left, right, target_lang)

    # --- one request, retried ----------------------------------------------------------------

    async def _complete(
        self, text: str, source_lang: Language, target_lang: Language, priority: int
    ) -> str:
        started = time.monotonic()
        deadline = started + self._deadline_s
        max_tokens = 2 * prompts.estimate_tokens(text) + 64
        attempt = 0
        empty_answers = 0
        widened = False
        while True:
            attempt += 1
            remaining = deadline - time.monotonic()
            failure: Exception
            retry_after: float | None = None
            try:
                answer = await self._request(
                    text, source_lang, target_lang, max_tokens, remaining, priority
                )
            except openai.APIConnectionError as exc:  # includes APITimeoutError
                failure = exc
            except openai.APIStatusError as exc:
                status = exc.status_code
                if status == 429 or status >= 500:
                    failure, retry_after = exc, _retry_after(exc.response.headers)
                elif status == 400 and _CONTEXT_ERROR.search(exc.message):
                    room = _room_for_answer(exc.message)
                    if not widened and room is not None and room > prompts.estimate_tokens(text):
                        # The prompt fits; only our max_tokens guess was too generous.
                        max_tokens, widened = room, True
                        attempt -= 1
                        continue
                    raise _TooLong(
                        f"{_server_message(exc)} (start vLLM with a larger --max-model-len)"
                    ) from None
                elif status == 400 and priority and self._refuses_priority(exc):
                    priority = 0
                    attempt -= 1
                    continue
                elif status == 400 and self._should_fall_back(exc):
                    attempt -= 1
                    continue
                else:
                    raise self._rejected(exc) from None
            except openai.APIError as exc:
                raise LLMError(f"unexpected answer from the LLM server: {exc}") from None
            else:
                if answer.finish_reason == "length":
                    raise _TooLong(
                        f"the model's answer was cut off at {max_tokens} tokens (it may be "
                        "repeating itself)"
                    )
                cleaned = prompts.strip_think(answer.text)
                if cleaned:
                    return cleaned
                empty_answers += 1
                if empty_answers > 1:
                    raise LLMError(f"the model {self.model!r} gave an empty answer twice")
                attempt -= 1  # one free retry for an empty answer
                continue

            elapsed = time.monotonic() - started
            if attempt >= self._max_attempts:
                raise self._give_up(failure, attempt, elapsed)
            delay = self._delay(attempt, retry_after)
            if time.monotonic() + delay >= deadline:
                raise self._give_up(failure, attempt, elapsed)
            log.warning(
                "LLM request failed (%s); retry %d/%d in %.1f s",
                _describe(failure),
                attempt,
                self._max_attempts - 1,
                delay,
            )
            await asyncio.sleep(delay)

    async def _request(
        self,
        text: str,
        source_lang: Language,
        target_lang: Language,
        max_tokens: int,
        remaining_s: float,
        priority: int,
    ) -> _Answer:
        """One request, counted in ``self.stats`` whatever its outcome."""
        try:
            answer = await self._send(
                text, source_lang, target_lang, max_tokens, remaining_s, priority
            )
        except openai.APIError as exc:
            self.stats.failed(exc)
            raise
        self.stats.answered(answer.text, answer.finish_reason, answer.usage)
        return answer

    async def _send(
        self,
        text: str,
        source_lang: Language,
        target_lang: Language,
        max_tokens: int,
        remaining_s: float,
        priority: int = 0,
    ) -> _Answer:
        timeout = max(0.1, min(self._timeout_s, remaining_s))
        # vLLM's own request field; left out at 0, which every server takes.
        # vLLM's own field, outside OpenAI's schema; None sends nothing extra.
        extra_body = {"priority": priority} if priority else None
        if self.prompt_format is PromptFormat.TRANSLATEGEMMA and self._use_completions:
            completion = await self._openai.completions.create(
                model=self.model,
                prompt=prompts.render_translategemma(text, source_lang, target_lang),
                max_tokens=max_tokens,
                temperature=0,
                timeout=timeout,
                extra_body=extra_body,
            )
            if not completion.choices:
                return _Answer("", None, completion.usage)
            first = completion.choices[0]
            return _Answer(first.text or "", first.finish_reason, completion.usage)
        if self.prompt_format is PromptFormat.TRANSLATEGEMMA:
            messages = prompts.translategemma_messages(text, source_lang, target_lang)
        elif self.prompt_format is PromptFormat.DELIMITED:
            messages = prompts.delimited_messages(text, source_lang, target_lang)
        else:
            messages = prompts.chat_messages(text, source_lang, target_lang)
        chat = await self._openai.chat.completions.create(
            model=self.model,
            messages=cast("list[ChatCompletionMessageParam]", messages),
            max_tokens=max_tokens,
            temperature=0,
            timeout=timeout,
            extra_body=extra_body,
        )
        if not chat.choices:
            return _Answer("", None, chat.usage)
        choice = chat.choices[0]
        return _Answer(choice.message.content or "", choice.finish_reason, chat.usage)

    def _refuses_priority(self, exc: openai.APIStatusError) -> bool:
        """Leave the request priority out for good after a vLLM refused it (module doc)."""
        if not _PRIORITY_REFUSED.search(_server_message(exc)):
            return False
        if self._paper_priority:
            self._paper_priority = 0
            log.warning(
                "%s schedules first come first served (%s): a paper's paragraphs go without "
                "a priority from now on, so a reader's selection may wait behind the ones "
                "queued inside vLLM (start vLLM with --scheduling-policy priority)",
                self.base_url,
                _server_message(exc),
            )
        return True

    def _should_fall_back(self, exc: openai.APIStatusError) -> bool:
        """Switch to /v1/completions after a template error from a vLLM without PR #41599."""
        if self.prompt_format is not PromptFormat.TRANSLATEGEMMA or self._use_completions:
            return False
        self._use_completions = True
        log.warning(
            "%s rejected the TranslateGemma content part (%s); using /v1/completions with a "
            "client-rendered prompt from now on (start vLLM >= PR #41599 with "
            "--chat-template-content-format openai to avoid this)",
            self.base_url,
            _server_message(exc),
        )
        return True

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        ceiling = min(self._backoff_max_s, self._backoff_s * 2.0 ** (attempt - 1))
        delay = ceiling * self._random.uniform(0.5, 1.0)
        if retry_after is not None:
            delay = max(delay, retry_after)
        return delay

    # --- error mapping -----------------------------------------------------------------------

    def _give_up(self, failure: Exception, attempts: int, elapsed: float) -> LLMError:
        what = f"{attempts} attempt{'s' if attempts != 1 else ''} in {elapsed:.1f} s"
        if isinstance(failure, openai.APIConnectionError) or (
            isinstance(failure, openai.APIStatusError)
            and failure.status_code in _UNAVAILABLE_STATUSES
        ):
            return LLMUnavailableError(
                f"the LLM server at {self.base_url} is not answering ({_describe(failure)}; {what})"
            )
        return LLMError(f"the LLM server at {self.base_url} failed: {_describe(failure)} ({what})")

    def _rejected(self, exc: openai.APIStatusError) -> LLMError:
        status = exc.status_code
        if status in (401, 403):
            return LLMError(
                f"the LLM server at {self.base_url} rejected the API key (HTTP {status}); "
                "check ZT_LLM_API_KEY against vLLM's --api-key"
            )
        if status == 404:
            return LLMError(
                f"the LLM server at {self.base_url} does not serve the model {self.model!r} "
                f"({_server_message(exc)}); check ZT_LLM_MODEL against vLLM's "
                "--served-model-name, and ZT_LLM_BASE_URL (it ends in /v1)"
            )
        return LLMError(
            f"the LLM server at {self.base_url} rejected the request (HTTP {status}): "
            f"{_server_message(exc)}"
        )


def readiness_probe(
    settings: Settings, http_client: httpx.AsyncClient | None = None
) -> Callable[[], Awaitable[str | None]]:
    """The vLLM manager's readiness probe: :meth:`LLMClient.probe` in the settings' languages.

    Each call uses a fresh client (a wake is rare), so a fallback to ``/v1/completions`` learnt
    from one vLLM never carries over to the next.
    """

    async def probe() -> str | None:
        async with LLMClient.from_settings(settings, http_client) as client:
            return await client.probe(settings.source_lang, settings.target_lang)

    return probe


def _server_message(exc: openai.APIStatusError) -> str:
    """The server's own error text (vLLM: ``{"error": {"message": ...}}``), else openai's."""
    body: Any = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return exc.message


def _room_for_answer(message: str) -> int | None:
    """Tokens left for the answer per a context-length error, when the server says so."""
    limit = _CONTEXT_ERROR.search(message)
    used = _PROMPT_TOKENS.search(message)
    if not limit or not used:
        return None
    return int(limit.group(1)) - int(used.group(1) or used.group(2))


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # an HTTP date: rare from LLM servers, and backoff covers it


def _describe(failure: Exception) -> str:
    if isinstance(failure, openai.APITimeoutError):
        return "timed out"
    if isinstance(failure, openai.APIConnectionError):
        cause = failure.__cause__
        return f"cannot connect: {cause}" if cause else "cannot connect"
    if isinstance(failure, openai.APIStatusError):
        return f"HTTP {failure.status_code}: {_server_message(failure)}"
    return str(failure)

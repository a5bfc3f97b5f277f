"""Counters of what the translator did since the process started (the server's ``/metrics``).

``LLMStats`` belongs to one ``LLMClient``: every HTTP request it sent, by outcome, the tokens
the server said it used, and the failures it gave up on. ``TranslationStats`` belongs to the
``Translator`` (``translator.stats``) and holds its client's ``LLMStats``: papers and pages
translated, and each paragraph by where its translation came from (the LLM or the cache).

Plain counters, only ever increased, on the event loop's thread; readers take them as they are
at scrape time. Nothing here does I/O.
"""

from __future__ import annotations

import importlib
from collections import Counter
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from common.errors import ZTError


class LazyModule:
    """A module imported at the first look at one of its names: ``openai`` (half a second of
    pydantic types) only once a request has been sent, which a cached paper never does."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        module: ModuleType = importlib.import_module(self._name)
        return getattr(module, attribute)


if TYPE_CHECKING:
    import openai
else:
    openai = LazyModule("openai")

#: ``LLMStats.requests`` outcomes: one per request sent, whatever happened next.
OK = "ok"
CUT_OFF = "cut_off"  # finish_reason "length": the answer hit max_tokens
EMPTY = "empty"  # an answer with no text
CONNECTION = "connection"  # refused, reset, DNS: the server was not there
TIMEOUT = "timeout"
RATE_LIMITED = "rate_limited"  # 429
SERVER_ERROR = "server_error"  # 5xx
TOO_LONG = "too_long"  # 400 "maximum context length"
REJECTED = "rejected"  # any other 4xx (API key, model name, template)
OUTCOMES = (OK, CUT_OFF, EMPTY, CONNECTION, TIMEOUT, RATE_LIMITED, SERVER_ERROR, TOO_LONG, REJECTED)


class Usage(Protocol):
    """The ``usage`` of an OpenAI-compatible answer (vLLM always sends it)."""

    prompt_tokens: int
    completion_tokens: int


def request_outcome(exc: openai.APIError) -> str:
    """The outcome of a request that raised ``exc``."""

    if isinstance(exc, openai.APITimeoutError):
        return TIMEOUT
    if isinstance(exc, openai.APIConnectionError):
        return CONNECTION
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status == 429:
            return RATE_LIMITED
        if status >= 500:
            return SERVER_ERROR
        if status == 400 and "maximum context length" in exc.message.lower():
            return TOO_LONG
        return REJECTED
    return REJECTED  # an answer that was not the API's shape


@dataclass
class LLMStats:
    """One LLM client's requests, tokens and failures."""

    requests: Counter[str] = field(default_factory=Counter)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: Translations the client gave up on (after its retries), by ``ZTError.error_type``.
    errors: Counter[str] = field(default_factory=Counter)

    def answered(self, text: str, finish_reason: str | None, usage: Usage | None) -> None:
        """A request that got an answer (perhaps cut off or empty: still paid for)."""
        if finish_reason == "length":
            self.requests[CUT_OFF] += 1
        elif not text.strip():
            self.requests[EMPTY] += 1
        else:
            self.requests[OK] += 1
        if usage is not None:
            self.prompt_tokens += usage.prompt_tokens or 0
            self.completion_tokens += usage.completion_tokens or 0

    def failed(self, exc: openai.APIError) -> None:
        """A request that got no answer."""
        self.requests[request_outcome(exc)] += 1

    def gave_up(self, exc: ZTError) -> None:
        self.errors[exc.error_type] += 1


@dataclass
class TranslationStats:
    """What one translator did; ``llm`` is its client's counters."""

    llm: LLMStats = field(default_factory=LLMStats)
    #: Documents whose translation completed, and the pages asked for in them.
    papers: int = 0
    pages: int = 0
    #: Paragraphs translated (delivered to the renderer), by where the translation came from.
    #: A text that appears twice in a paper counts twice, with its one source.
    paragraphs_from_llm: int = 0
    paragraphs_from_cache: int = 0

    def paper_done(self, pages: int) -> None:
        self.papers += 1
        self.pages += pages

"""Requests sent ahead: the paragraphs of a scan's first pages are translated while its later
pages are still read by OCR (the PDF worker hands them on as it reads, see
``translation.read.early``).

An early request's answer goes to the cache like any other. Once the whole document is read,
the job claims the early request of each paragraph it translates (an answer that already
arrived is found in the cache); a paragraph read early that the whole document does not hold
costs its request and nothing else, and the requests not claimed are cancelled when the job
is done. Early requests are a head start only: any failure of theirs is left to the job's own
request for the paragraph (its recovery of a lost LLM included).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from common.progress import ProgressSink, ignore_progress
from translation.model import glossary
from translation.model.cache import CacheKey, TranslationCache
from translation.model.llm import LLMClient, import_sdk_in_background
from translation.read.flow.passage import passages
from translation.read.paragraph import Paragraph
from translation.request import TranslationRequest

#: The texts of paragraphs read early that need a request (glossary applied, cache looked up).
Prepare = Callable[[list[Paragraph]], Awaitable[Sequence[str]]]


class EarlyRequests:
    """The early requests of one job: ``prepare`` turns paragraphs into texts to send (none
    where the cache has them); ``ready`` says once, before the first text goes, whether they
    may go (the LLM is up, or brought up); ``send`` sends one text and caches its answer.
    Made on the event loop; ``offer`` may be called from any thread. ``async with`` closes it."""

    def __init__(
        self,
        ready: Callable[[], Coroutine[Any, Any, bool]],
        prepare: Prepare,
        send: Callable[[str], Coroutine[Any, Any, str]],
    ) -> None:
        self._ready, self._prepare, self._send = ready, prepare, send
        self._loop = asyncio.get_running_loop()
        self._may: asyncio.Task[bool] | None = None
        self._batches: set[asyncio.Task[None]] = set()
        self._requests: dict[str, asyncio.Task[str]] = {}
        self._open = True

    def offer(self, paragraphs: list[Paragraph]) -> None:
        """Send the requests of ``paragraphs`` (from any thread)."""
        self._loop.call_soon_threadsafe(self._take, paragraphs)

    def _take(self, paragraphs: list[Paragraph]) -> None:
        if not self._open:
            return
        batch = asyncio.create_task(self._start(paragraphs))
        self._batches.add(batch)
        batch.add_done_callback(self._batches.discard)

    async def _start(self, paragraphs: list[Paragraph]) -> None:
        try:
            # The cache first: paragraphs all answered there never bring the LLM up (a paper
            # translated before, read again, must not start vLLM for nothing).
            texts = await self._prepare(paragraphs)
            if not texts or not self._open:  # settled meanwhile: the job sends them
                return
            if self._may is None:
                self._may = asyncio.create_task(self._ready())
            if not await self._may:
                return
        except Exception:
            return  # a head start only: the job sends these itself
        for text in texts:
            if self._open and text not in self._requests:
                self._requests[text] = asyncio.create_task(self._send(text))

    async def settle(self) -> None:
        """Take no more paragraphs and wait until those taken have their requests (not their
        answers): from then on :meth:`claim` knows every early request. Paragraphs still
        waiting for the LLM to come up are left to the job (which waits for it, saying so)."""
        self._open = False
        if self._may is not None and not self._may.done():
            for batch in self._batches:
                batch.cancel()
        await asyncio.gather(*self._batches, return_exceptions=True)

    def claim(self, text: str) -> asyncio.Task[str] | None:
        """The early request of ``text``, now the caller's; None when there is none."""
        return self._requests.pop(text, None)

    @property
    def sent(self) -> int:
        """Early requests not claimed (yet)."""
        return len(self._requests)

    async def __aenter__(self) -> EarlyRequests:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Cancel what was not claimed (and the readiness check, if still waiting)."""
        self._open = False
        tasks: list[asyncio.Task[Any]] = [*self._batches, *self._requests.values()]
        if self._may is not None:
            tasks.append(self._may)
        self._requests.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def early_requests(
    request: TranslationRequest,
    ensure_ready: Callable[[ProgressSink], Awaitable[None]],
    would_wait: Callable[[], Awaitable[bool]] | None,
    *,
    key: Callable[[str], CacheKey],
    cache: TranslationCache,
    ask: Callable[[str], Coroutine[Any, Any, str]],
    clients: Sequence[LLMClient] = (),
) -> EarlyRequests:
    """The early requests of ``request``: none when it is forced (no cache), or when the
    LLM is a long wait away (``would_wait``); the LLM is brought up quietly (the job reports
    reading). ``key`` is a text's cache key, ``ask`` gets its answer (the translator's), through
    ``clients`` (made ready ahead of the first request)."""

    async def ready() -> bool:
        if request.force or (would_wait is not None and await would_wait()):
            return False
        await ensure_ready(ignore_progress)
        return True

    async def prepare(paragraphs: list[Paragraph]) -> list[str]:
        if request.glossary is not None:
            paragraphs = await asyncio.to_thread(
                request.glossary.apply, paragraphs, request.source_lang, request.target_lang
            )
            paragraphs = [p for p in paragraphs if not glossary.only_terms(p.text)]
        # One request a passage, as the whole document will send it (the early part hands
        # on whole passages only).
        texts = [passage.text for passage in passages(paragraphs)]
        keys = {text: key(text) for text in texts}
        found = await asyncio.to_thread(cache.get_many, keys.values(), None)
        missing = [text for text, text_key in keys.items() if text_key not in found]
        if missing:  # a request will go: the SDK is imported while the worker reads on
            import_sdk_in_background(*clients)
        return missing

    async def send(text: str) -> str:
        answer = await ask(text)
        await asyncio.to_thread(cache.put, key(text), answer)
        return answer

    return EarlyRequests(ready, prepare, send)

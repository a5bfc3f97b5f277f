"""Orchestration: PDF bytes in, translated PDF bytes out.

The pipeline serves no HTTP and makes no GPU decisions; it reaches the model only through
``translation.model``. It receives an ``ensure_ready`` callable (the vLLM manager's, or a health
check) and calls it before the first LLM request and again whenever the LLM connection fails
mid-paper; every answer is cached the moment it arrives, so a recovery
resumes where it stopped and nothing is paid for twice.

All PDF work happens in a worker process per document (``translation.worker``): this process
only sends it the pages to typeset, so it stays small and responsive whatever the PDF.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import httpx

from common.errors import InputError, LLMError, LLMUnavailableError, NothingToTranslateError
from common.progress import Progress, ProgressSink, Stage, ignore_progress
from translation.document_run import (
    MAX_MOVES,
    MAX_RECOVERIES,
    Aborted,
    DocumentRun,
    Elsewhere,
    EnsureReady,
    host_gone,
)
from translation.early_requests import EarlyRequests, early_requests
from translation.model import glossary, prompts
from translation.model.cache import CacheKey, TranslationCache
from translation.model.dispatch import Dispatcher
from translation.model.fair_slots import INTERACTIVE
from translation.model.glossary import Glossary
from translation.model.limiter import Limiter, make_limiter
from translation.model.llm import LLMClient, import_sdk_in_background
from translation.model.stats import TranslationStats
from translation.page_renderer import PageRenderer
from translation.read.flow.passage import Passage, passages
from translation.read.math.formulas import restore
from translation.read.ocr import OcrOptions, OcrTurn
from translation.read.paragraph import Paragraph, ParagraphKind
from translation.render.preview import PageWatch
from translation.request import TranslationRequest, TranslationResult
from translation.snippet import Snippet, StreamedAnswer, protect_snippet, restore_snippet
from translation.worker import PdfWorker, WorkerConfig

if TYPE_CHECKING:
    from common.language import Language
    from common.settings import Settings


@runtime_checkable
class WaitsOutside(Protocol):
    """An ``EnsureReady`` that can say at once whether it would wait (``vllm_manager.gpu_wait``
    for a busy GPU): the translator then closes its PDF worker before waiting."""

    async def __call__(self, progress: ProgressSink) -> None: ...

    async def would_wait(self) -> bool: ...


def _answered(request: asyncio.Task[str] | None) -> bool:
    """Whether an early request (claimed) came back with an answer."""
    return (
        request is not None
        and request.done()
        and not request.cancelled()
        and (request.exception() is None)
    )


class _StepOut(Exception):
    """The LLM will not be had soon: wait with the PDF worker closed, then start again."""


class Translator:
    """Translates documents; one instance serves every job and owns the shared LLM limit.

    With several GPU hosts a ``router`` (``translation.model.dispatch.Dispatcher``) picks each
    request's host and ``limiter`` is that dispatcher's fair queue; ``llm`` then only names the
    model for the cache keys. A request whose host goes away mid-answer is sent to another;
    only when no host is left does the translator call ``ensure_ready`` to bring one back.
    """

    def __init__(
        self,
        *,
        llm: LLMClient,
        cache: TranslationCache,
        limiter: Limiter,
        ensure_ready: EnsureReady,
        owns_limiter: bool = False,
        worker_config: WorkerConfig | None = None,
        router: Dispatcher | None = None,
    ) -> None:
        self._router = router
        self._worker_config = worker_config or WorkerConfig()
        self._llm = llm
        self._cache = cache
        self._limiter = limiter
        self._owns_limiter = owns_limiter
        self._ensure_ready = ensure_ready
        #: What this translator did since it was made (the server's ``/metrics``).
        self.stats = TranslationStats(llm=llm.stats)
        self._draining = False

    def llm_clients(self) -> list[LLMClient]:
        """The LLM clients this translator's requests go through: its own, or each GPU
        host's (several hosts)."""
        if self._router is None:
            return [self._llm]
        return [lane.llm for lane in self._router.lanes]

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        ensure_ready: EnsureReady,
        http_client: httpx.AsyncClient | None = None,
        limiter: Limiter | None = None,
        router: Dispatcher | None = None,
    ) -> Translator:
        """A translator from the settings; a ``limiter`` or ``router`` passed in stays the
        caller's to close (a router is the limiter too).

        Without either, the translator makes its own limiter (``ZT_CONCURRENCY_MODE``) and
        closes it, polling ``/metrics`` on ``http_client``. The LLM answers never use
        ``http_client``: they go through the LLM client's own connection pool, so they cannot
        queue the periodic calls that share it.
        """
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        given = router or limiter
        return cls(
            llm=LLMClient.from_settings(settings),
            cache=TranslationCache(settings.cache_path),
            limiter=given or make_limiter(settings, http_client=http_client),
            ensure_ready=ensure_ready,
            owns_limiter=given is None,
            worker_config=WorkerConfig.from_settings(settings),
            router=router,
        )

    @property
    def limiter(self) -> Limiter:
        return self._limiter

    def pdf_worker(self) -> PdfWorker:
        """A new worker process under this translator's limits (the caller closes it)."""
        return PdfWorker(self._worker_config)

    async def inspect(
        self, data: bytes, password: str | None = None, ocr: OcrOptions | None = None
    ) -> int:
        """``translation.read.document.inspect_pdf`` in a worker process, under the PDF limits."""
        async with self.pdf_worker() as worker:
            return await worker.inspect(data, password, ocr)

    def drain(self) -> None:
        """Send no new LLM request, for good (a server stop): a ``translate`` running now
        fails once its requests in flight have landed in the cache, so a rerun pays only for
        paragraphs never sent."""
        self._draining = True

    async def aclose(self) -> None:
        if self._owns_limiter:
            await self._limiter.aclose()
        await self._llm.aclose()
        self._cache.close()

    async def translate(
        self,
        request: TranslationRequest,
        progress: ProgressSink = ignore_progress,
        *,
        ensure_ready: EnsureReady | None = None,
        on_queued: Callable[[], object] | None = None,
        on_scan: Callable[[], object] | None = None,
        watch: PageWatch | None = None,
    ) -> TranslationResult:
        """Translate one document.

        ``on_queued`` is called once every LLM request of the document waits at the limiter
        (not when the cache answers all): from then on the job mostly waits for answers, and
        its caller may let another job start (``JobRegistry.hand_on_slot``). ``on_scan`` is
        called as the first page read by OCR starts (a scan reads for minutes): its caller may
        let another job start then too. While pages are read by OCR, ``progress`` says
        "reading page k of n (OCR)".

        ``ensure_ready`` replaces the constructor's for this document (a job that may wait
        hours for the GPU, say: ``vllm_manager.gpu_wait``). One that ``WaitsOutside`` and
        would wait is awaited with no PDF worker open; the paper is read again after.
        ``watch`` is told of each page as it is typeset (``translation.render.preview``).

        Raises ``InputError`` for bad input (before any LLM call), the ``ensure_ready``
        callable's errors when the LLM cannot be brought up, and ``LLMError`` when it fails.
        """
        ready = ensure_ready or self._ensure_ready
        would_wait = ready.would_wait if isinstance(ready, WaitsOutside) else None
        try:
            return await self._translate_once(
                request, progress, ready, would_wait, on_queued, on_scan, watch
            )
        except _StepOut:
            # A wait of hours must not hold a worker process (~150 MB) with the paper open.
            await ready(progress)
            return await self._translate_once(
                request, progress, ready, None, on_queued, on_scan, watch
            )

    async def _translate_once(
        self,
        request: TranslationRequest,
        progress: ProgressSink,
        ensure_ready: EnsureReady,
        would_wait: Callable[[], Awaitable[bool]] | None,
        on_queued: Callable[[], object] | None,
        on_scan: Callable[[], object] | None,
        watch: PageWatch | None = None,
    ) -> TranslationResult:
        started = time.monotonic()
        # Identical languages fail before anything is paid for.
        if request.source_lang == request.target_lang:
            raise InputError(
                f"source and target language are the same ({request.source_lang.code} ->"
                f" {request.target_lang.code}): nothing to translate"
            )

        # A scan's first pages are translated while later ones are read by OCR.
        early = early_requests(
            request,
            ensure_ready,
            would_wait,
            key=lambda text: self._key(request, text),
            cache=self._cache,
            ask=lambda text: self._ask(request, text),
            clients=self.llm_clients(),
        )
        # The early requests close first: a cancelled job sends nothing more while its worker
        # is being stopped (that can take a reading step's time).
        async with self.pdf_worker() as worker, early:
            page_count, extracted = await worker.open(
                request.pdf,
                request.password,
                request.pages,
                request.include_references,
                request.target_lang,
                request.ocr_options,
                _ocr_reporter(progress, on_scan),
                font_family=request.font_family,
                on_part=early.offer,
            )
            typeface = await worker.typeface()
            paragraphs = extracted.paragraphs
            if not request.translate_tables:  # tables stay as they are, numbers and text
                paragraphs = [p for p in paragraphs if p.kind is not ParagraphKind.CELL]
            if request.glossary is not None:  # in a thread: a long one compiles in a second
                paragraphs = await asyncio.to_thread(
                    request.glossary.apply, paragraphs, request.source_lang, request.target_lang
                )
            if not paragraphs:
                raise NothingToTranslateError(
                    "nothing to translate: no paragraph of running text was found on the"
                    " pages asked for"
                )
            pages = PageRenderer(worker, paragraphs, watch)
            try:
                run = await self._translate_paragraphs(
                    request, paragraphs, progress, pages, ensure_ready, would_wait, on_queued, early
                )
            except BaseException:
                await pages.cancel()
                pages.end(failed=True)
                raise
            overlapped = pages.rendered
            try:
                await pages.close()
                progress(
                    Progress(Stage.RENDERING, "rendering the translated PDF", run.total, run.total)
                )
                fallbacks = await worker.fallbacks()
                mono, dual = await worker.finish(
                    request.dual, request.dual_mode.value, request.translation_first
                )
            finally:
                pages.end(failed=False)
        asked = range(page_count) if request.pages is None else set(request.pages)
        self.stats.paper_done(sum(1 for page in asked if 0 <= page < page_count))
        return TranslationResult(
            mono=mono if request.mono else None,
            dual=dual,
            page_count=page_count,
            paragraphs=len(paragraphs),
            llm_calls=run.llm_calls,
            cache_hits=run.cached,
            seconds=time.monotonic() - started,
            pages_rendered_early=overlapped,
            references_kept=() if request.include_references else extracted.reference_pages,
            typeface=typeface,
            fallbacks=tuple(fallbacks),
        )

    # --- steps -------------------------------------------------------------------------------

    def _key(self, request: TranslationRequest, text: str) -> CacheKey:
        if request.glossary is not None:  # the terms a text's placeholders stand for
            text = request.glossary.key_text(text, request.source_lang, request.target_lang)
        return self._llm.cache_key(text, request.source_lang, request.target_lang)

    async def _translate_paragraphs(
        self,
        request: TranslationRequest,
        paragraphs: Sequence[Paragraph],
        progress: ProgressSink,
        pages: PageRenderer,
        ensure_ready: EnsureReady,
        would_wait: Callable[[], Awaitable[bool]] | None = None,
        on_queued: Callable[[], object] | None = None,
        early: EarlyRequests | None = None,
    ) -> DocumentRun:
        """Translate every passage (cache first), handing each piece's answer to ``pages``; a
        passage sent ``early`` takes that request's answer.

        A paragraph cut by a column, a page, a float or an equation is one passage, one
        request; its answer is split over its pieces (``translation.read.flow.passage``)."""
        if early is not None:
            await early.settle()
        by_text: dict[str, list[Passage]] = {}
        for passage in passages(paragraphs):
            by_text.setdefault(passage.text, []).append(passage)

        def deliver(text: str, answer: str) -> None:
            for passage in by_text[text]:
                for paragraph, part in zip(passage.pieces, passage.split(answer), strict=True):
                    translation = restore(part, paragraph)
                    if request.glossary is not None:
                        translation = request.glossary.restore(
                            translation, paragraph, request.target_lang
                        )
                    pages.add(paragraph, translation)

        keys = {text: self._key(request, text) for text in by_text}
        # One query for the whole paper, off the event loop (other jobs keep translating).
        since = request.fresh_since if request.force else None
        found = (
            {}
            if request.force and since is None
            else await asyncio.to_thread(self._cache.get_many, keys.values(), since)
        )
        missing = []
        answered_early = 0  # found in the cache because this job's early request put it there
        for text, key in keys.items():
            if key in found:
                deliver(text, found[key])
                answered_early += early is not None and _answered(early.claim(text))
            elif request.glossary is not None and glossary.only_terms(text):
                deliver(text, text)  # a table cell "BERT": nothing for the model to translate
            else:
                missing.append(text)
        done = len(by_text) - len(missing)
        if missing:  # a cached paper imports no SDK (half a second of CPU)
            import_sdk_in_background(*self.llm_clients())
        if missing and would_wait is not None and await would_wait():
            raise _StepOut  # before anything is counted: the paper is read again after the wait
        self.stats.paragraphs_from_cache += len(paragraphs) - sum(
            _pieces(by_text[t]) for t in missing
        )

        run = DocumentRun(
            request=request,
            progress=progress,
            total=len(by_text),
            cached=done - answered_early,
            done=done,
            ensure_ready=ensure_ready,
        )
        run.llm_calls += answered_early
        if not missing:
            progress(Progress(Stage.TRANSLATING, "all paragraphs cached", run.done, run.total))
            return run
        await ensure_ready(progress)
        progress(Progress(Stage.TRANSLATING, run.progress_text(), run.done, run.total))
        missing = _send_order(missing, by_text, self._limiter.limit)
        tasks = [
            asyncio.create_task(
                self._translate_one(run, text)
                if early is None or (sent := early.claim(text)) is None
                else self._translate_claimed(run, text, sent)
            )
            for text in missing
        ]
        if on_queued is not None:
            on_queued()
        try:
            for finished in asyncio.as_completed(tasks):
                text, answer = await finished
                deliver(text, answer)
                self.stats.paragraphs_from_llm += _pieces(by_text[text])
        except Exception:
            # The job fails, but answers already on their way are paid for: let the requests in
            # flight finish (and reach the cache); the ones still waiting for a slot give up.
            run.aborted = True
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return run

    async def _translate_one(self, run: DocumentRun, text: str) -> tuple[str, str]:
        request = run.request
        while True:
            generation = run.generation
            try:
                answer = await self._ask(request, text, run)
            except Elsewhere:
                continue
            except LLMUnavailableError:
                await self._recover(run, generation)
                continue
            break
        # Written at once: a crash or a killed LLM loses nothing already translated. In a
        # thread: the commit's fsync would otherwise stall every other request's I/O, and when
        # a batch's worth of answers lands together those stalls leave vLLM's slots empty.
        await asyncio.to_thread(self._cache.put, self._key(request, text), answer)
        run.llm_calls += 1
        run.done += 1
        run.progress(Progress(Stage.TRANSLATING, run.progress_text(), run.done, run.total))
        return text, answer

    async def _ask(
        self, request: TranslationRequest, text: str, run: DocumentRun | None = None
    ) -> str:
        """``text``'s answer: from whichever host the router gives (several hosts), else under
        the shared limiter. Not sent once ``run``'s job failed or the translator drains
        (``Aborted``). A host that went away under it is marked lost; with ``run`` (not for
        an early request, whose failure is left to the job's own request) ``Elsewhere`` is then
        raised while another is ready, ``LLMUnavailableError`` when none is."""
        if self._router is None:
            async with self._limiter.slot(request.owner):
                self._check_going(run)
                return await self._llm.translate(
                    text, request.source_lang, request.target_lang, paper=True
                )
        async with self._router.route(request.owner, size=len(text)) as lane:
            self._check_going(run)
            try:
                answer = await lane.llm.translate(
                    text, request.source_lang, request.target_lang, paper=True
                )
            except LLMError as exc:
                if not host_gone(lane, exc):
                    raise
                self._router.lost(lane, str(exc))  # an early request's host too: it is gone
                if run is None:
                    raise
                run.moved += 1
                if self._router.any_ready() and run.moved <= MAX_MOVES:
                    raise Elsewhere from exc
                raise LLMUnavailableError(f"GPU host {lane.name} went away: {exc}") from exc
        if run is not None:
            run.hosts[lane.name] += 1
        return answer

    async def cached_snippet(
        self,
        text: str,
        source_lang: Language,
        target_lang: Language,
        glossary: Glossary | None = None,
        *,
        html: bool = False,
    ) -> str | None:
        """A reader's selection's translation from the cache (or ``text`` itself when it has
        nothing to translate); None when the model must be asked (:meth:`translate_snippet`)."""
        snippet, key = self._snippet_key(text, source_lang, target_lang, glossary, html)
        if key is None:
            return text
        found = await asyncio.to_thread(self._cache.get, key)
        return None if found is None else restore_snippet(found, snippet, target_lang)

    async def translate_snippet(
        self,
        text: str,
        source_lang: Language,
        target_lang: Language,
        glossary: Glossary | None = None,
        owner: str = INTERACTIVE,
        *,
        html: bool = False,
    ) -> str:
        """A reader's selection translated.

        Protected as a paragraph is (``translation.snippet``), looked up in the same cache (a
        selection equal to a paper's paragraph costs nothing), else sent under ``owner`` (the
        interactive class by default: ahead of queued paragraphs, ``fair_slots``) and cached
        at once. The caller has called ``ensure_ready``; ``LLMUnavailableError`` is its to
        recover from. Text with nothing to translate (a formula, a URL) comes back as it is.
        """
        snippet, key = self._snippet_key(text, source_lang, target_lang, glossary, html)
        if key is None:
            return text
        found = await asyncio.to_thread(self._cache.get, key)
        if found is not None:
            return restore_snippet(found, snippet, target_lang)
        if self._draining:
            raise Aborted
        if self._router is None:
            async with self._limiter.slot(owner):
                answer = await self._llm.translate(snippet.text, source_lang, target_lang)
        else:
            async with self._router.route(owner, size=len(snippet.text)) as lane:
                answer = await lane.llm.translate(snippet.text, source_lang, target_lang)
        await asyncio.to_thread(self._cache.put, key, answer)
        return restore_snippet(answer, snippet, target_lang)

    async def stream_snippet(
        self,
        text: str,
        source_lang: Language,
        target_lang: Language,
        glossary: Glossary | None = None,
        owner: str = INTERACTIVE,
    ) -> AsyncIterator[str]:
        """:meth:`translate_snippet`, its answer handed out as it is made (``stream: true``):
        the pieces joined are that method's answer. A cache hit, a text with nothing to
        translate and a model whose answer cannot stream (``LLMClient.streams``) come whole; a
        failure before the first piece is recovered as :meth:`translate_snippet` recovers
        (retried); after it, ``LLMError``. The answer is cached when it is whole."""
        snippet, key = self._snippet_key(text, source_lang, target_lang, glossary, False)
        found = None if key is None else await asyncio.to_thread(self._cache.get, key)
        whole = found is not None or self._router is not None or not self._llm.streams
        if key is None or whole:
            yield await self.translate_snippet(text, source_lang, target_lang, glossary, owner)
            return
        if self._draining:
            raise Aborted
        shown = StreamedAnswer(snippet, target_lang)
        pieces: list[str] = []
        async with self._limiter.slot(owner):
            try:
                async for piece in self._llm.stream(snippet.text, source_lang, target_lang):
                    pieces.append(piece)
                    if new := shown.add(piece):
                        yield new
            except LLMError:
                if pieces:
                    raise
                pieces = [await self._llm.translate(snippet.text, source_lang, target_lang)]
        answer = prompts.strip_think("".join(pieces))
        if not answer:
            raise LLMError("the model gave an empty answer")
        await asyncio.to_thread(self._cache.put, key, answer)
        if rest := shown.end(answer):
            yield rest

    def _snippet_key(
        self,
        text: str,
        source_lang: Language,
        target_lang: Language,
        terms: Glossary | None,
        html: bool,
    ) -> tuple[Snippet, CacheKey | None]:
        """The protected snippet and its cache key (None: nothing to translate)."""
        snippet = protect_snippet(text, source_lang, target_lang, terms, html=html)
        if not snippet.translatable:
            return snippet, None
        sent = snippet.text
        keyed = sent if terms is None else terms.key_text(sent, source_lang, target_lang)
        return snippet, self._llm.cache_key(keyed, source_lang, target_lang)

    def _check_going(self, run: DocumentRun | None) -> None:
        if self._draining or (run is not None and run.aborted):
            raise Aborted

    async def _translate_claimed(
        self, run: DocumentRun, text: str, sent: asyncio.Task[str]
    ) -> tuple[str, str]:
        """``text``'s answer from its early request, or from a request of its own where that
        one failed (a lost LLM is recovered from here)."""
        try:
            answer = await sent
        except Exception:
            return await self._translate_one(run, text)
        run.llm_calls += 1
        run.done += 1
        run.progress(Progress(Stage.TRANSLATING, run.progress_text(), run.done, run.total))
        return text, answer

    async def _recover(self, run: DocumentRun, failed_generation: int) -> None:
        """Bring the LLM back once per outage, however many requests saw it fail."""
        async with run.recovery_lock:
            if run.aborted:
                raise Aborted  # the job already failed (perhaps this very recovery)
            if run.generation != failed_generation:
                return  # another request already recovered from this outage
            if run.recoveries >= MAX_RECOVERIES:
                run.aborted = True
                raise LLMUnavailableError(
                    f"lost the LLM {run.recoveries + 1} times during this paper; giving up"
                )
            run.recoveries += 1
            run.progress(Progress(Stage.STARTING_LLM, "lost the LLM mid-paper; bringing it back"))
            try:
                await (run.ensure_ready or self._ensure_ready)(run.progress)
            except BaseException:
                run.aborted = True  # requests waiting on this recovery must not retry it
                raise
            run.generation += 1


def _send_order(missing: list[str], by_text: dict[str, list[Passage]], slots: int) -> list[str]:
    """The order a paper's requests are sent in: page by page, each page's longest first, so
    a page is typeset as its last answer arrives while later pages translate (longest first
    over the whole paper left nearly every page to set after the last answer, seconds on a
    long paper); the last round (as many as the ``slots``) longest first, so the slots end
    their last requests together and short requests fill the gaps."""

    def first_page(text: str) -> int:
        return min(piece.page for passage in by_text[text] for piece in passage.pieces)

    ordered = sorted(missing, key=lambda text: (first_page(text), -len(text)))
    last = max(0, len(ordered) - slots)
    return ordered[:last] + sorted(ordered[last:], key=len, reverse=True)


def _pieces(group: Sequence[Passage]) -> int:
    return sum(len(passage.pieces) for passage in group)


def _ocr_reporter(
    progress: ProgressSink, on_scan: Callable[[], object] | None
) -> Callable[[OcrTurn], None]:
    """What the PDF worker tells, from its thread, as a page's OCR starts: the page on the
    event loop's ``progress``, and ``on_scan`` at the first."""
    loop = asyncio.get_running_loop()

    def reading(turn: OcrTurn) -> None:
        message = Progress(Stage.QUEUED, turn.text, turn.nth - 1, turn.of)
        loop.call_soon_threadsafe(progress, message)
        if turn.nth == 1 and on_scan is not None:
            loop.call_soon_threadsafe(on_scan)

    return reading

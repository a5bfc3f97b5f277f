"""Typesetting pages while the rest of the paper is still being translated."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from translation.read.paragraph import Paragraph
from translation.render.preview import PageWatch
from translation.worker import PdfWorker


class PageRenderer:
    """Has the worker typeset each page as soon as all of its paragraphs are translated, so
    rendering overlaps translation instead of following it."""

    def __init__(
        self, worker: PdfWorker, paragraphs: Sequence[Paragraph], watch: PageWatch | None = None
    ) -> None:
        self._pdf = worker
        self._watch = watch
        self._paragraphs: dict[int, list[Paragraph]] = {}
        for paragraph in paragraphs:
            self._paragraphs.setdefault(paragraph.page, []).append(paragraph)
        self._waiting = {page: len(group) for page, group in self._paragraphs.items()}
        self._translations: dict[str, str] = {}
        self._ready: asyncio.Queue[int | None] = asyncio.Queue()
        self._complete: set[int] = set()  # pages whose every paragraph is translated
        self._stopped = False
        self._typesetting = False  # a page is being set in the worker now
        self.rendered = 0
        if watch is not None:
            watch.begin(sorted(self._paragraphs), worker)
        self._worker = asyncio.create_task(self._work())

    def add(self, paragraph: Paragraph, translation: str) -> None:
        self._translations[paragraph.id] = translation
        self._waiting[paragraph.page] -= 1
        if self._waiting[paragraph.page] == 0:
            self._complete.add(paragraph.page)
            self._ready.put_nowait(paragraph.page)

    def end(self, failed: bool) -> None:
        """The worker is about to go: the watch renders nothing more through it."""
        if self._watch is not None:
            self._watch.end(failed)
            self._watch = None

    async def close(self) -> None:
        """Wait for the pages already queued; re-raise a rendering error."""
        self._ready.put_nowait(None)
        await self._worker

    async def cancel(self) -> None:
        """Stop rendering (the translation failed); a page being typeset finishes first, work
        done ahead of the pages (the warm-up, formula copies) is not waited for: the job's
        worker goes with the job."""
        self._stopped = True
        self._ready.put_nowait(None)
        if not self._typesetting:
            self._worker.cancel()
        await asyncio.gather(self._worker, return_exceptions=True)

    async def _work(self) -> None:
        # The first page's costs, paid while the first answers are awaited; then, whenever no
        # page is complete, the next page's formula copies (a third of a math page's time),
        # one page a step: a page completed meanwhile waits one step at most.
        await self._pdf.warm_up()
        ahead = [
            number
            for number, group in sorted(self._paragraphs.items())
            if any(p.formula_boxes for p in group)
        ]
        while not self._stopped:
            if ahead and self._ready.empty():
                number = ahead.pop(0)
                if number not in self._complete:
                    await self._pdf.prepare_page(number, self._paragraphs[number])
                continue
            page = await self._ready.get()
            if page is None or self._stopped:
                break
            group = self._paragraphs[page]
            # A snapshot: the event loop keeps adding other pages' translations meanwhile.
            texts = {p.id: self._translations[p.id] for p in group}
            watch = self._watch
            self._typesetting = True
            try:
                if watch is None:
                    await self._pdf.render_page(page, group, texts)
                else:
                    watch.typesetting(page)
                    width = watch.thumbnail_width()
                    thumbnail = await self._pdf.render_page(page, group, texts, width)
                    watch.typeset(page, thumbnail)
            finally:
                self._typesetting = False
            self.rendered += 1

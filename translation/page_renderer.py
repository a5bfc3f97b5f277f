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
        self._stopped = False
        self.rendered = 0
        if watch is not None:
            watch.begin(sorted(self._paragraphs), worker)
        self._worker = asyncio.create_task(self._work())

    def add(self, paragraph: Paragraph, translation: str) -> None:
        self._translations[paragraph.id] = translation
        self._waiting[paragraph.page] -= 1
        if self._waiting[paragraph.page] == 0:
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
        """Stop rendering (the translation failed); a page being typeset finishes first."""
        self._stopped = True
        self._ready.put_nowait(None)
        await asyncio.gather(self._worker, return_exceptions=True)

    async def _work(self) -> None:
        # The first page's costs, paid while the first answers are awaited.
        await self._pdf.warm_up()
        while (page := await self._ready.get()) is not None and not self._stopped:
            group = self._paragraphs[page]
            # A snapshot: the event loop keeps adding other pages' translations meanwhile.
            texts = {p.id: self._translations[p.id] for p in group}
            watch = self._watch
            if watch is None:
                await self._pdf.render_page(page, group, texts)
            else:
                watch.typesetting(page)
                thumbnail = await self._pdf.render_page(page, group, texts, watch.thumbnail_width())
                watch.typeset(page, thumbnail)
            self.rendered += 1

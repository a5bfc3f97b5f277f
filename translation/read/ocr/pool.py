"""Reading several scanned pages at once: a pool of forked processes, one page each at a time.

Tesseract through PyMuPDF holds the GIL and PyMuPDF is not thread-safe, so pages are read in
parallel by processes, never threads. The processes are forked from the one that holds the open
document (they inherit it, nothing is parsed again), read the pages they are given, and hand
back plain :class:`~translation.read.layout.PageLayout` values, in page order as they finish.
Each is killed with its parent (a PDF worker killed for its time or memory leaves no Tesseract
running) and inherits its parent's address-space limit.

Where there is no ``fork`` (Windows), or one process is all there may be, pages are read one at
a time in the calling process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import pymupdf

from translation.read.layout import PageLayout, Rect
from translation.read.ocr.options import OcrOptions
from translation.read.ocr.tesseract import read_ocr_page

#: Memory one page's OCR may take at 300 dpi (the page rendered, Tesseract's working set), with
#: room to spare: a worker limited to M MiB reads at most M / this many pages at once.
OCR_PROCESS_MB = 512


def ocr_processes(memory_mb: int, cores: int | None = None) -> int:
    """How many pages one document may read at once: one per core this process may run on,
    and no more than fit in ``memory_mb`` (0 = no limit) at :data:`OCR_PROCESS_MB` each."""
    if cores is None:
        cores = _cores()
    fit = memory_mb // OCR_PROCESS_MB if memory_mb > 0 else cores
    return max(1, min(cores, fit))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# The forked processes find their document and options here (set before the fork).
_job: tuple[pymupdf.Document, OcrOptions, int] | None = None


class _Failed(Exception):
    """An error of a page read in a pool process, carried back as text (PyMuPDF's own errors
    do not survive pickling)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(kind, message)
        self.kind, self.message = kind, message


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    # Stopping is the parent's business: a pool process ignores the terminal's Ctrl-C.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _may_fork() -> Iterator[None]:
    """Let a daemonic process (a PDF worker) start the pool's processes. ``multiprocessing``
    forbids it because a daemon's children outlive it when it is killed; ours die with their
    parent (``_die_with_parent``)."""
    config: dict[str, object] = multiprocessing.current_process()._config  # type: ignore[attr-defined]
    daemon = config.get("daemon")
    config["daemon"] = False
    try:
        yield
    finally:
        if daemon is not None:
            config["daemon"] = daemon
        else:
            config.pop("daemon", None)


def _read_one(task: tuple[int, tuple[Rect, ...]]) -> PageLayout:
    number, figures = task
    assert _job is not None, "the pool is forked from read_pages"
    doc, options, text_flags = _job
    try:
        return read_ocr_page(doc[number], options, text_flags, figures)
    except MemoryError as exc:
        raise _Failed("memory", str(exc)) from None
    except Exception as exc:
        raise _Failed("error", f"{type(exc).__name__}: {exc}") from None


def read_pages(
    doc: pymupdf.Document,
    tasks: Sequence[tuple[int, tuple[Rect, ...]]],
    options: OcrOptions,
    text_flags: int,
    processes: int,
) -> Generator[PageLayout, None, None]:
    """The OCR layouts of the pages ``tasks`` name (page number, figures read from its own
    layers), in that order, each as soon as it and those before it are read; up to
    ``processes`` pages are read at once. A page's failure is raised when its turn comes
    (``MemoryError`` for running out of memory, or for a pool process that died); closing the
    iterator early stops the pool.
    """
    count = min(processes, len(tasks))
    if count <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for number, figures in tasks:
            yield read_ocr_page(doc[number], options, text_flags, figures)
        return
    global _job
    _job = (doc, options, text_flags)
    pool = ProcessPoolExecutor(
        count, mp_context=multiprocessing.get_context("fork"), initializer=_die_with_parent
    )
    try:
        with _may_fork():  # a fork pool starts all its processes at the first submit
            futures = [pool.submit(_read_one, task) for task in tasks]
        for (number, _), future in zip(tasks, futures, strict=True):
            try:
                yield future.result()
            except _Failed as failed:
                if failed.kind == "memory":
                    raise MemoryError(failed.message) from None
                raise RuntimeError(failed.message) from None
            except BrokenProcessPool:
                raise MemoryError(
                    f"a process reading page {number + 1} by OCR died (out of memory?)"
                ) from None
    finally:
        _job = None
        for process in list(getattr(pool, "_processes", {}).values()):
            with contextlib.suppress(Exception):
                process.kill()  # a page still being read is not waited for
        pool.shutdown(wait=True, cancel_futures=True)

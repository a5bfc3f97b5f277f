"""The process the PDF workers (``translation.worker``) are forked from, startable before the
engine is imported: this module imports nothing of it.

Children are forked from a forkserver that has already imported the engine and loaded the word
list every job reads (``translation.worker_preload``), a few ms each; where there is none
(Windows) they are spawned. The forkserver imports the engine in its own process, so a command
that starts it first (``zotero-translate translate``) imports the rest of its modules meanwhile.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from multiprocessing.context import BaseContext

#: What the forkserver imports once, before it forks a worker: the worker's own modules (the
#: child's engine, which the parent does not import), the word list
#: (``translation.worker_preload``), and the main module's imports.
PRELOAD = ("translation.worker", "translation.worker_child", "translation.worker_preload")

_context_lock = threading.Lock()
_context: BaseContext | None = None


def main_imports() -> list[str]:
    """The modules every child imports before its first step, for the forkserver to import
    once instead: multiprocessing runs the parent's main module again in each child
    (``spawn.prepare``, as ``__mp_main__``), and the command line's module imports the
    settings (pydantic-settings), 0.3-0.5 s a child on 2 busy cores, twice an upload.

    The main module is stood for by the modules of what it imported: a script run by path
    (the ``zotero-translate`` entry point, which does ``from zotero_server.cli import main``),
    or a module run with ``-m``, never itself (its children run it again, and runpy warns
    on their stderr when it was imported before); a package's ``__main__`` is never run again.
    Nothing is imported that the children would not import anyway."""
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__file__", None) is None:
        return []  # ``python -c``, an interactive session: the children run nothing again
    spec = getattr(main, "__spec__", None)
    own = spec.name if spec is not None and spec.name else None
    if own is not None and own.endswith("__main__"):
        return []
    names = {
        getattr(value, "__module__", None)
        for key, value in vars(main).items()
        if not key.startswith("__")  # its loader, its builtins
    }
    return sorted(
        name
        for name in names
        if isinstance(name, str)
        and name in sys.modules
        and name not in ("__main__", "builtins", own)  # a module run with -m is run again as
        # ``__mp_main__`` in each child: imported before, runpy warns on the child's stderr
    )


def context() -> BaseContext:
    """The multiprocessing context the PDF workers are started in (made once)."""
    global _context
    with _context_lock:
        if _context is None:
            if "forkserver" in multiprocessing.get_all_start_methods():
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload([*PRELOAD, *main_imports()])
                _context = ctx
            else:
                _context = multiprocessing.get_context("spawn")
        return _context


def warm_up() -> None:
    """Start the forkserver now (it imports the engine once, about a second), so the first
    upload does not wait for it. Blocking: run it in a thread."""
    if context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def stop() -> None:
    """End the forkserver this process started, at once, for a command that has closed its
    PDF workers and is about to exit: left to notice the command's exit itself, it tore down
    an interpreter holding the whole engine, 0.1-0.25 s after the command had ended, and
    whoever read the command's output waited for it. A no-op where none runs."""
    if _context is None or _context.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    server = forkserver._forkserver
    pid = getattr(server, "_forkserver_pid", None)
    if not pid:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    # The standard library's own stop: closes its end, reaps the process, forgets it.
    stop_server = getattr(server, "_stop", None)
    if stop_server is not None:
        stop_server()

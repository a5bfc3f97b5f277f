"""Reading ``/proc``: a process's full command line, its ancestors, and a keyword scan.

Processes come and go while we look, and some entries are not ours to read (``hidepid``,
another user, another PID namespace). Nothing here raises for that: every read returns a
:class:`Cmdline` whose ``state`` says what was found, and the caller decides.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from common.redact import mask_argv

PROC_ROOT = Path("/proc")

# Any sane command line fits; a runaway one must not make one status read allocate gigabytes.
_MAX_CMDLINE_BYTES = 1 << 20


class CmdlineState(StrEnum):
    OK = "ok"  # command holds the full command line
    GONE = "gone"  # no such process (exited, or not in our PID namespace)
    UNREADABLE = "unreadable"  # exists, but we may not read it (hidepid, permissions)
    EMPTY = "empty"  # exists with an empty command line (zombie, kernel thread)


@dataclass(frozen=True)
class Cmdline:
    pid: int
    state: CmdlineState
    command: str = ""  # the command line when OK; "[comm]" when EMPTY and comm is readable
    detail: str = ""  # why, when not OK


def read_cmdline(pid: int, proc_root: Path = PROC_ROOT) -> Cmdline:
    """The command line of ``pid`` from ``/proc/PID/cmdline``: arguments joined by spaces.

    Processes that rewrite their title (vLLM's ``VLLM::EngineCore``) pad the old argv area
    with NULs or spaces; both are trimmed. Secret-looking argument values (``--api-key=...``,
    URL credentials: ``common.redact``) are masked here, before anything can show them.
    """
    base = proc_root / str(pid)
    try:
        with open(base / "cmdline", "rb") as fh:
            raw = fh.read(_MAX_CMDLINE_BYTES)
    except (FileNotFoundError, ProcessLookupError):
        return Cmdline(pid, CmdlineState.GONE, detail="no such process")
    except PermissionError:
        return Cmdline(pid, CmdlineState.UNREADABLE, detail="permission denied")
    except OSError as exc:
        return Cmdline(pid, CmdlineState.UNREADABLE, detail=exc.strerror or type(exc).__name__)
    args = [part.decode("utf-8", errors="replace") for part in raw.split(b"\0") if part]
    command = " ".join(mask_argv(args)).strip()
    if command:
        return Cmdline(pid, CmdlineState.OK, command)
    if not base.exists():
        return Cmdline(pid, CmdlineState.GONE, detail="no such process")
    comm = _read_small(base / "comm")
    return Cmdline(
        pid, CmdlineState.EMPTY, f"[{comm}]" if comm else "", detail="empty command line"
    )


def parent_pid(pid: int, proc_root: Path = PROC_ROOT) -> int | None:
    """The parent of ``pid`` from ``/proc/PID/stat``, or None when it cannot be read."""
    stat = _read_small(proc_root / str(pid) / "stat")
    # "pid (comm) state ppid ...": comm may contain spaces and parentheses, so cut at the last ")".
    fields = stat[stat.rfind(")") + 1 :].split()
    if len(fields) < 2 or not fields[1].isdigit():
        return None
    return int(fields[1])


def self_and_ancestors(pid: int | None = None, proc_root: Path = PROC_ROOT) -> frozenset[int]:
    """``pid`` (default: this process) and every ancestor up to PID 1.

    The keyword scan skips these: the process running the scan, and the shell or service that
    started it, may carry a keyword in their own command line (``~/vllm/.venv/bin/zotero-translate
    gpu-api``, a test run named after vLLM) without being a GPU service. Descendants are *not*
    skipped: a vLLM our own server launched must be seen.
    """
    current: int | None = os.getpid() if pid is None else pid
    seen: set[int] = set()
    while current is not None and current > 0 and current not in seen:
        seen.add(current)
        current = parent_pid(current, proc_root)
    return frozenset(seen)


def matches(command: str, keywords: Iterable[str]) -> bool:
    """Whether ``command`` contains any keyword, ignoring case."""
    lowered = command.casefold()
    return any(k.casefold() in lowered for k in keywords if k)


def scan(
    keywords: Iterable[str],
    exclude: Iterable[int] = (),
    proc_root: Path = PROC_ROOT,
) -> list[Cmdline]:
    """Every process (sorted by pid) whose command line contains a keyword, minus ``exclude``.

    Processes that exit during the scan or cannot be read are skipped: they cannot be matched.
    """
    wanted = [k for k in keywords if k]
    if not wanted:
        return []
    skip = set(exclude)
    try:
        names = os.listdir(proc_root)
    except OSError:
        return []
    found = []
    for pid in sorted(int(n) for n in names if n.isdigit()):
        if pid in skip:
            continue
        entry = read_cmdline(pid, proc_root)
        if entry.state is CmdlineState.OK and matches(entry.command, wanted):
            found.append(entry)
    return found


def _read_small(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(4096).decode("utf-8", errors="replace").strip()
    except OSError:
        return ""

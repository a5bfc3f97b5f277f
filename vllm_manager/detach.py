"""Detached processes: the shell scripts that launch, probe and signal one, and local twins.

A launched vLLM must outlive our server, the Jupyter terminal and its culling (deleting a
terminal kills its session, not a process that left it), so it runs in its own session::

    setsid sh -c 'echo $$ > PIDFILE; exec sh -c CMD' >> LOG 2>&1 < /dev/null &

The child writes its own pid: ``$!`` after ``setsid cmd &`` can name a parent that exits at
once. That pid leads a new session and process group, which also holds everything vLLM spawns
(its engine core), so "alive" means "the group still has a live member" and signals go to the
whole group. Zombies do not count as alive: in containers pid 1 often never reaps them.

The scripts (pure string builders) run under ``/bin/sh``, locally or in a Jupyter terminal.
Paths are put in double quotes, so ``$HOME`` in them expands on the host that runs the script.
The ``*_local`` functions do the same things in-process for a vLLM on this host.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
from pathlib import Path

from common.errors import VLLMStartError
from common.redact import mask_secrets

#: The launch script waits this long for the child to write its pid file.
PID_WAIT_S = 10


def dq(path: str) -> str:
    """Double-quote a path for sh, leaving ``$VAR`` expansion on."""
    escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
    return f'"{escaped}"'


def launch_script(command: str, pid_file: str, log_file: str) -> str:
    """Launch ``command`` detached; print the pid the child wrote, or fail (exit 1)."""
    inner = f"echo $$ > {dq(pid_file)}; exec sh -c {shlex.quote(command)}"
    pid, log = dq(pid_file), dq(log_file)
    tries = PID_WAIT_S * 10
    return "\n".join(
        [
            "command -v setsid >/dev/null || { echo 'setsid not found (util-linux)'; exit 127; }",
            f'mkdir -p "$(dirname {pid})" && rm -f {pid} || exit 1',
            f'{{ echo "== launched by zotero-translate at $(date)"; '
            f"echo {shlex.quote('$ ' + mask_secrets(command))}; }} > {log}",
            f"setsid sh -c {shlex.quote(inner)} >> {log} 2>&1 < /dev/null &",
            "i=0",
            f'while [ ! -s {pid} ] && [ "$i" -lt {tries} ]; do sleep 0.1; i=$((i + 1)); done',
            f"cat {pid} 2>/dev/null || {{ echo 'no pid file after {PID_WAIT_S} s'; exit 1; }}",
        ]
    )


def parse_launch(exit_code: int, output: str) -> int:
    """The pid printed by :func:`launch_script`; ``VLLMStartError`` if the launch failed."""
    last = output.strip().splitlines()[-1].strip() if output.strip() else ""
    if exit_code == 0 and last.isdigit():
        return int(last)
    raise VLLMStartError(
        f"launching vLLM failed (exit {exit_code}): {output.strip()[-500:] or 'no output'}"
    )


# A group is alive when /proc has a non-zombie process with that pgrp. Fields after the last
# ") " of /proc/PID/stat: state ppid pgrp ...
def _group_check(pgid: str, on_alive: str, on_gone: str) -> str:
    return "\n".join(
        [
            "for f in /proc/[0-9]*/stat; do",
            '  read -r line 2>/dev/null < "$f" || continue',
            '  set -- ${line##*") "}',
            f'  if [ "$1" != Z ] && [ "$3" = "{pgid}" ]; then {on_alive}; exit 0; fi',
            "done",
            on_gone,
        ]
    )


def group_alive_script(pgid: int) -> str:
    """Prints ``alive`` or ``gone``."""
    return _group_check(str(int(pgid)), "echo alive", "echo gone")


def our_pid_script(pid_file: str) -> str:
    """Prints the pid from ``pid_file`` if its group is alive, else nothing."""
    pid = dq(pid_file)
    return "\n".join(
        [
            # read, not cat: no child process whose command line names the vLLM pid file.
            f"read -r pid 2>/dev/null < {pid} || exit 0",
            'case "$pid" in ""|*[!0-9]*) exit 0;; esac',
            _group_check("$pid", 'echo "$pid"', "true"),
        ]
    )


def signal_script(pgid: int, sig: signal.Signals) -> str:
    name = sig.name.removeprefix("SIG")
    pgid = int(pgid)
    return f"kill -s {name} -- -{pgid} 2>/dev/null || kill -s {name} {pgid} 2>/dev/null; true"


def tail_script(log_file: str, lines: int) -> str:
    return f"tail -n {int(lines)} {dq(log_file)} 2>/dev/null; true"


def forget_script(pid_file: str) -> str:
    return f"rm -f {dq(pid_file)}"


def parse_pid(output: str) -> int | None:
    text = output.strip()
    return int(text) if text.isdigit() else None


# --- the same, in-process, for this host ----------------------------------------------------


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host and is not a zombie."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat_fields(Path(f"/proc/{pid}/stat"))
    return fields is None or fields[0] != "Z"


def group_alive_local(pgid: int) -> bool:
    """Whether process group ``pgid`` has a member that is not a zombie."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        fields = _stat_fields(stat)
        if fields is not None and fields[0] != "Z" and fields[2] == str(pgid):
            return True
    return False


def signal_group_local(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pgid, sig)


def read_pid_file(path: Path) -> int | None:
    try:
        return parse_pid(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def tail_local(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 64 * 1024))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _stat_fields(path: Path) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name: state, ppid, pgrp, ..."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = text.rpartition(")")[2].split()
    return fields or None

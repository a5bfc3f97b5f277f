"""Running one measurement in a child process, so its peak RSS is its own."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


class ChildFailed(RuntimeError):
    """The child exited non-zero; the message is the last line of its stderr."""


def measure_in_child(
    module: str, path: Path, *extra: str, timeout_s: float = 600
) -> dict[str, object]:
    """``python -m MODULE --one PATH EXTRA...`` from the project root; its last stdout line is
    JSON. ``ChildFailed`` when it exits non-zero."""
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-m", module, "--one", str(path), *extra],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    if proc.returncode != 0:
        raise ChildFailed((proc.stderr.strip().splitlines() or ["no output"])[-1])
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def child_main(
    argv: list[str],
    measure: Callable[[Path], dict[str, object]],
    run: Callable[[Path | None], str],
) -> None:
    """A child-measured bench's command line: ``--one PATH`` is the child's side (``measure``
    one paper, JSON on stdout, read by :func:`measure_in_child`); otherwise print ``run``'s
    table (for the corpus folder given, else the default one)."""
    if len(argv) >= 2 and argv[0] == "--one":
        print(json.dumps(measure(Path(argv[1]))))
        return
    print(run(Path(argv[0]) if argv else None))

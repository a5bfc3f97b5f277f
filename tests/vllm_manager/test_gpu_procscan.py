"""/proc reading against real processes; a hand-built proc tree only for states a root test
process cannot produce for real (unreadable entries)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from tests.helpers.gpu import running, wait_for_cmdline
from vllm_manager import procscan
from vllm_manager.procscan import CmdlineState


def test_full_command_line_of_a_real_process() -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(60)", "--model", "a b", "x"]
    with running(argv) as proc:
        entry = procscan.read_cmdline(proc.pid)
    assert entry.state is CmdlineState.OK
    assert entry.command == " ".join(argv)


def test_exited_process_is_gone() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    entry = procscan.read_cmdline(proc.pid)
    assert entry.state is CmdlineState.GONE


def test_zombie_has_an_empty_command_line() -> None:
    proc = subprocess.Popen(["sleep", "60"])
    try:
        wait_for_cmdline(proc.pid)
        proc.kill()
        # Not reaped yet: a zombie keeps /proc/PID with an empty cmdline.
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        entry = procscan.read_cmdline(proc.pid)
        assert entry.state is CmdlineState.EMPTY
        assert entry.command == "[sleep]"
    finally:
        proc.wait()


def test_retitled_process_padding_is_trimmed(tmp_path: Path) -> None:
    """vLLM's setproctitle leaves NUL/space padding after ``VLLM::EngineCore``."""
    (tmp_path / "42").mkdir()
    (tmp_path / "42" / "cmdline").write_bytes(b"VLLM::EngineCore" + b"\0" * 40 + b"   ")
    entry = procscan.read_cmdline(42, proc_root=tmp_path)
    assert (entry.state, entry.command) == (CmdlineState.OK, "VLLM::EngineCore")


def test_unreadable_entry(tmp_path: Path) -> None:
    # As root we cannot be denied a real /proc entry; a directory in its place fails to read.
    (tmp_path / "7" / "cmdline").mkdir(parents=True)
    entry = procscan.read_cmdline(7, proc_root=tmp_path)
    assert entry.state is CmdlineState.UNREADABLE
    assert entry.detail


def test_ancestors_of_this_process() -> None:
    chain = procscan.self_and_ancestors()
    assert os.getpid() in chain
    assert os.getppid() in chain
    assert 1 in chain  # every process descends from PID 1 of its namespace


def test_scan_finds_matching_processes_ignoring_case() -> None:
    marker = f"ZtScan-{uuid.uuid4().hex}"
    with running([sys.executable, "-c", "import time; time.sleep(60)", marker]) as proc:
        found = procscan.scan([marker.lower(), "another-keyword-nobody-uses"])
    assert [(e.pid, e.command.endswith(marker)) for e in found] == [(proc.pid, True)]


def test_scan_skips_excluded_pids() -> None:
    marker = f"zt-scan-{uuid.uuid4().hex}"
    with running([sys.executable, "-c", "import time; time.sleep(60)", marker]) as proc:
        assert procscan.scan([marker], exclude={proc.pid}) == []
    assert procscan.scan([]) == []

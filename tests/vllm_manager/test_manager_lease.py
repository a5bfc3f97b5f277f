"""The start lease on disk and its cross-process lock (real files, real processes)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest

from common.errors import GPUStatusUnknownError
from vllm_manager.lease import StartLease


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_taken_lease_is_seen_by_another_reader_until_released(tmp_path) -> None:
    mine, theirs = StartLease(tmp_path, 60), StartLease(tmp_path, 60)
    taken = mine.take()
    assert theirs.read() == taken
    mine.release()
    assert theirs.read() is None
    assert not (tmp_path / "lease.json").exists()


def test_lease_expires(tmp_path) -> None:
    lease = StartLease(tmp_path, 60)
    lease.take(now=time.time() - 61)
    assert lease.read() is None


def test_lease_of_an_owner_that_died_before_launching_is_void(tmp_path) -> None:
    (tmp_path / "lease.json").write_text(
        json.dumps(
            {
                "owner_pid": dead_pid(),
                "started_at": time.time(),
                "expires_at": time.time() + 60,
                "launched": False,
                "host": socket.gethostname(),
            }
        )
    )
    assert StartLease(tmp_path, 60).read() is None


def test_lease_outlives_its_owner_once_the_launch_was_sent(tmp_path) -> None:
    """A server that launched vLLM and crashed: vLLM may still be loading."""
    data = {
        "owner_pid": dead_pid(),
        "started_at": time.time(),
        "expires_at": time.time() + 60,
        "launched": True,
        "host": socket.gethostname(),
    }
    (tmp_path / "lease.json").write_text(json.dumps(data))
    lease = StartLease(tmp_path, 60).read()
    assert lease is not None and lease.launched


def test_release_leaves_a_newer_lease_of_someone_else_alone(tmp_path) -> None:
    mine, theirs = StartLease(tmp_path, 60), StartLease(tmp_path, 60)
    mine.take(now=time.time() - 1)
    newer = theirs.take()
    mine.release()
    assert theirs.read() == newer


def test_torn_lease_file_counts_as_no_lease(tmp_path) -> None:
    (tmp_path / "lease.json").write_text('{"owner_pid": 12')
    assert StartLease(tmp_path, 60).read() is None


async def test_lock_excludes_another_process(tmp_path) -> None:
    lease = StartLease(tmp_path, 60)
    tmp_path.mkdir(exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time\n"
            f"f = open({str(lease.lock_path)!r}, 'a')\n"
            "fcntl.flock(f, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(30)\n",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        with pytest.raises(GPUStatusUnknownError, match="held by another process"):
            async with lease.locked(timeout_s=0.3):
                pass
    finally:
        holder.kill()
        holder.wait()
    async with lease.locked(timeout_s=5):
        pass


async def test_lock_excludes_a_second_manager_in_the_same_process(tmp_path) -> None:
    first, second = StartLease(tmp_path, 60), StartLease(tmp_path, 60)
    async with first.locked():
        with pytest.raises(GPUStatusUnknownError):
            async with second.locked(timeout_s=0.2):
                pass

"""The start lease: "a vLLM start was asked for at T", in memory and on disk.

For the first seconds after ``vllm serve`` starts no process is on the GPU, so the GPU looks
idle. Whoever launches takes this lease first; everybody else, in this process or another (a
restarted server, parallel ``translate`` commands), reads it and waits instead of launching a
second vLLM.

Two files in ``settings.manager_dir``:

- ``lease.lock``: an ``fcntl.flock`` held only around decide-and-launch, so two processes never
  both see "idle, no lease" and both launch. flock locks belong to an open file, so two managers
  in one process exclude each other too; the lock is released by the kernel if the holder dies.
- ``lease.json``: the lease itself (owner pid, host, times, whether the launch was sent),
  replaced atomically (write a temporary file, then ``os.replace``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, replace
from pathlib import Path

from common.errors import GPUStatusUnknownError
from vllm_manager.decision import LeaseInfo
from vllm_manager.detach import pid_alive

LOCK_POLL_S = 0.05


class StartLease:
    """The lease of one data directory. Methods other than :meth:`locked` do no locking."""

    def __init__(self, directory: Path, duration_s: float) -> None:
        self.directory = directory
        self.duration_s = duration_s
        self.path = directory / "lease.json"
        self.lock_path = directory / "lease.lock"
        self._held: LeaseInfo | None = None

    @contextlib.asynccontextmanager
    async def locked(self, timeout_s: float = 120.0) -> AsyncIterator[None]:
        """Hold the cross-process lock. Polls without blocking the event loop.

        Raises ``GPUStatusUnknownError`` if another holder keeps it past ``timeout_s``.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise GPUStatusUnknownError(
                            f"the start lock {self.lock_path} is held by another process "
                            f"for over {timeout_s:.0f} s",
                            retry_after_s=30.0,
                        ) from None
                    await asyncio.sleep(LOCK_POLL_S)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def read(self, now: float | None = None) -> LeaseInfo | None:
        """The lease that still counts, or None.

        A lease stops counting when it expires, or when its owner on this host died before
        sending the launch (a crash between taking the lease and launching).
        """
        now = time.time() if now is None else now
        info = self._read_file()
        if info is None or not info.active(now):
            return None
        if not info.launched and info.host == socket.gethostname():
            if info.owner_pid != os.getpid() and not pid_alive(info.owner_pid):
                return None
        return info

    def take(self, now: float | None = None) -> LeaseInfo:
        """Write a fresh lease owned by this process (call under :meth:`locked`)."""
        now = time.time() if now is None else now
        info = LeaseInfo(
            owner_pid=os.getpid(),
            started_at=now,
            expires_at=now + self.duration_s,
            host=socket.gethostname(),
        )
        self._write(info)
        return info

    def mark_launched(self) -> None:
        """Record that the launch command was sent: the lease now outlives its owner."""
        if self._held is not None:
            self._write(replace(self._held, launched=True))

    def release(self) -> None:
        """Drop the lease if it is ours (vLLM became healthy, or the start failed)."""
        if self._held is None:
            return
        info = self._read_file()
        held = self._held
        if info is not None and (info.owner_pid, info.started_at) == (
            held.owner_pid,
            held.started_at,
        ):
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        self._held = None

    @property
    def held(self) -> LeaseInfo | None:
        """The lease this object took and has not released (in memory)."""
        return self._held

    def _write(self, info: LeaseInfo) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(asdict(info)), encoding="utf-8")
        os.replace(tmp, self.path)
        self._held = info

    def _read_file(self) -> LeaseInfo | None:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            return LeaseInfo(
                owner_pid=int(raw["owner_pid"]),
                started_at=float(raw["started_at"]),
                expires_at=float(raw["expires_at"]),
                launched=bool(raw.get("launched", False)),
                host=str(raw.get("host", "")),
            )
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, OSError):
            # A torn or hand-edited file: treat as no lease rather than blocking starts forever.
            return None

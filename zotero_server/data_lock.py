"""One server per data folder: ``<ZT_DATA_DIR>/server.lock``, held with ``fcntl.flock`` for as
long as the server runs.

Two servers on one data folder would both resume the same unfinished jobs (each paid for, each
writing outputs the other does not know). The second one therefore refuses to start and names
the first. The OS lock dies with its process (a kill -9 included), so a crashed owner never
blocks the next start; the file itself stays and says who held it last (pid, address, start
time): a stale file from a dead process is simply taken over.
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import datetime
from pathlib import Path
from types import TracebackType

from common.errors import ConfigError

#: The lock file, inside ``ZT_DATA_DIR``.
FILE_NAME = "server.lock"


class DataDirInUseError(ConfigError):
    """Another running server holds the data folder (the CLI exits 2 with this message)."""

    error_type = "DataDirInUse"


class DataDirLock:
    """The held lock on a data folder; :meth:`release` (or the ``with`` block's end) frees it."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def acquire(cls, data_dir: Path, address: str) -> DataDirLock:
        """Take the data folder for this process, serving at ``address`` (shown to a second
        server). ``DataDirInUseError`` when another process holds it, ``ConfigError`` when the
        lock file cannot be made."""
        path = data_dir / FILE_NAME
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise ConfigError(f"cannot create the lock file {path}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if isinstance(exc, BlockingIOError):
                raise DataDirInUseError(
                    f"the data folder {data_dir} is in use by another zotero-translate server"
                    f" ({_describe(path)}); stop that one, or give this one its own ZT_DATA_DIR"
                ) from None
            raise ConfigError(f"cannot lock {path}: {exc}") from exc
        owner = {
            "pid": os.getpid(),
            "address": address,
            "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        }
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(owner) + "\n").encode(), 0)
        except OSError:
            pass  # the lock holds without the note; a second server then says less
        return cls(fd, path)

    def release(self) -> None:
        """Free the lock (the file stays for the next owner to overwrite); safe twice."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> DataDirLock:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _describe(path: Path) -> str:
    """Who holds the lock, as its file says: ``pid 123 at http://127.0.0.1:8890``."""
    try:
        owner = json.loads(path.read_text(encoding="utf-8"))
        return f"pid {int(owner['pid'])} at {owner['address']}, since {owner['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "its pid and address are not written yet"

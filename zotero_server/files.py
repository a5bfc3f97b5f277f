"""Where uploads wait for their job and outputs wait for their download.

Outputs live flat in ``settings.outputs_dir`` under the names the plugin fetches
(``/translatedFile/<name>`` carries no job id in old plugins). A job's outputs share one stem that
is unique among the files still waiting, so two users sending ``paper.pdf`` get ``paper-mono.pdf``
and ``paper-2-mono.pdf`` instead of overwriting each other. A GET that sent the last byte deletes
the file, and exactly one GET can: the first claims the file before its first byte (the others get
409 while it is sent, then 410 saying when it was downloaded); an aborted transfer releases the
claim, so the plugin's retry finds the file again. HEAD, range requests and ``?preview=true`` never
claim or delete. Files never fetched are swept after ``ZT_OUTPUT_TTL_S``. Lookups accept bare names
only, so nothing outside the directory can be named.

Uploads live in ``<data_dir>/uploads/<job id>.pdf`` from the POST until their job ends, across
restarts while it has not.

Every write either completes or leaves nothing behind (no ``.part`` file, no empty upload); a full
disk is ``DiskFullError`` (HTTP 507, "disk full in ZT_DATA_DIR"). Output stems are cut so that
every output name, with a ``-N`` to keep it unique, is one a download accepts
(``file_names.MAX_NAME_BYTES``, below the 255-byte file-name limit): whatever name was accepted
for translation, its outputs can be fetched under the names announced.
``save`` and the upload methods block: run them in a worker thread. The download bookkeeping
(``download_started``/``download_ended``, ``delete_when_idle``, ``sweep``) runs on the event
loop's thread, which makes "look up, then serve" and "check, then delete" atomic: a file is
never deleted between a request finding it and the response opening it.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import logging
import os
import stat
import threading
import time
import uuid
from collections import Counter, OrderedDict
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from urllib.parse import quote, unquote

from starlette.responses import FileResponse
from starlette.types import Message, Receive, Scope, Send

from zotero_server.file_names import MAX_NAME_BYTES, OutputKind, check_file_name
from zotero_server.http_errors import (
    AlreadyDownloadedError,
    DiskFullError,
    DownloadInProgressError,
    InvalidNameError,
    NotFoundError,
)

log = logging.getLogger(__name__)

_TMP_SUFFIX = ".part"
#: How many downloaded names are remembered (for the 410 of a second GET).
DOWNLOADED_KEPT = 1000
#: The usual file-name limit (ext4, xfs, btrfs, NTFS through WSL), in bytes; output names stay
#: within the lower ``MAX_NAME_BYTES`` a download accepts (see ``fit_stem``).
MAX_FILE_NAME_BYTES = 255
_LONGEST_SUFFIX = max(len(kind.file_name("").encode()) for kind in OutputKind)


def write_file(path: Path, data: bytes, where: Path) -> None:
    """Write ``data`` to ``path`` completely or not at all: on any error the partial file is
    removed, and a full disk (or quota) becomes ``DiskFullError`` naming ``where``."""
    try:
        path.write_bytes(data)
    except BaseException as exc:
        path.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFullError(
                f"disk full in ZT_DATA_DIR ({where}): free some space and try again"
            ) from exc
        raise


#: Hex digits of the hash that keeps two shortened stems apart.
_HASH_CHARS = 8


def fit_stem(stem: str, extra_bytes: int = 0) -> str:
    """``stem`` as is when ``<stem><extra>-<longest kind>.pdf`` fits ``MAX_NAME_BYTES`` (the
    longest name a download accepts); else cut by bytes on a character boundary and ended by
    ``-`` and a short hash of the whole stem, so that two long names sharing their start still
    get different outputs. ``extra_bytes`` is room for a ``-N``."""
    budget = MAX_NAME_BYTES - _LONGEST_SUFFIX - extra_bytes
    encoded = stem.encode("utf-8")
    if len(encoded) <= budget:
        return stem
    digest = hashlib.sha256(encoded).hexdigest()[:_HASH_CHARS]
    head = encoded[: budget - _HASH_CHARS - 1].decode("utf-8", errors="ignore").rstrip()
    return f"{head or 'paper'}-{digest}"


class OutputStore:
    """Output files waiting for download. Thread-safe; see the module docstring."""

    def __init__(
        self, directory: Path, ttl_s: float, on_removed: Callable[[str], None] | None = None
    ) -> None:
        self._dir = directory
        self._ttl_s = ttl_s
        self._on_removed = on_removed
        self._lock = threading.Lock()
        self._downloading: Counter[str] = Counter()
        self._delete_later: set[str] = set()
        self._reported: set[str] = set()  # bad entries already logged by the sweeper
        # Files a GET is sending (409 for everyone else) and files whose last byte is on its way
        # (404: a GET right after a complete one must not find it before the deletion ran).
        self._sending: set[str] = set()
        self._claimed: set[str] = set()
        # When each file went whole to a GET (newest DOWNLOADED_KEPT): a second GET is told.
        self._downloaded: OrderedDict[str, float] = OrderedDict()

    @property
    def directory(self) -> Path:
        return self._dir

    def prepare(self) -> None:
        """Create the directory; drop half-written files a crash left behind."""
        self._dir.mkdir(parents=True, exist_ok=True)
        for leftover in self._dir.glob(f".*{_TMP_SUFFIX}"):
            leftover.unlink(missing_ok=True)

    def save(
        self,
        stem: str,
        outputs: Sequence[tuple[OutputKind, bytes]],
        claim: Callable[[list[str]], None] | None = None,
    ) -> list[str]:
        """Write one job's outputs under a stem free for all of them; return the file names.

        ``claim`` is called with the names before the first byte is written (the job records
        them, so a restart can remove files of a job that never finished); if it raises,
        nothing is written."""
        with self._lock:
            chosen = self._free_stem(stem, [kind for kind, _ in outputs])
            if claim is not None:
                claim([kind.file_name(chosen) for kind, _ in outputs])
            names: list[str] = []
            try:
                for kind, data in outputs:
                    name = kind.file_name(chosen)
                    tmp = self._dir / f".{uuid.uuid4().hex}{_TMP_SUFFIX}"
                    write_file(tmp, data, self._dir)
                    os.replace(tmp, self._dir / name)
                    self._downloaded.pop(name, None)  # a new file under that name
                    names.append(name)
            except BaseException:
                for name in names:  # a job's outputs come all together or not at all
                    (self._dir / name).unlink(missing_ok=True)
                raise
        return names

    def _free_stem(self, stem: str, kinds: Sequence[OutputKind]) -> str:
        candidate, n = fit_stem(stem), 1
        while any(os.path.lexists(self._dir / kind.file_name(candidate)) for kind in kinds):
            n += 1
            candidate = f"{fit_stem(stem, len(f'-{n}'))}-{n}"
        return candidate

    def resolve(self, raw: str) -> tuple[str, Path]:
        """The waiting file called ``raw`` (a URL path segment, already percent-decoded once).

        Some clients encode twice, so a name still holding ``%`` is also tried decoded again.
        Raises ``InvalidNameError`` for anything that is not a bare ``*.pdf`` (or ``*.csv``) name,
        ``NotFoundError`` for a name with no waiting file and ``DownloadInProgressError`` for a
        file another GET is sending.
        """
        candidates = [raw]
        if "%" in raw and unquote(raw) != raw:
            candidates.append(unquote(raw))
        name = check_file_name(raw, "file name", csv=True)
        for candidate in candidates:
            try:
                name = check_file_name(candidate, "file name", csv=True)
            except InvalidNameError:
                continue
            path = self._dir / name
            if path.parent != self._dir:  # belt and braces: check_file_name forbids separators
                continue
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and name not in self._claimed:
                if name in self._sending:
                    raise DownloadInProgressError(f"file is being downloaded: {name}")
                return name, path
        at = self._downloaded.get(name)
        if at is not None:
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))
            raise AlreadyDownloadedError(
                f"{name} was already downloaded at {when}; each file is sent once"
                " (translate the paper again for another copy)"
            )
        raise NotFoundError(f"file not found: {name}")

    def names(self) -> list[str]:
        """Waiting files, oldest first."""
        entries = []
        for path in self._dir.iterdir():
            if path.name.startswith(".") or not path.is_file():
                continue
            try:
                entries.append((path.stat().st_mtime, path.name))
            except OSError:
                continue
        return [name for _, name in sorted(entries)]

    def sweep(self, now: float | None = None) -> list[str]:
        """Delete files older than the TTL (by modification time); return their names.

        A file being downloaded right now is left for the next sweep. Half-written ``.part``
        files older than the TTL go too (a crash or a killed thread left them). Entries that are
        no regular file (a directory called ``x.pdf``) or cannot be deleted are skipped and
        logged once; they never stop the sweep.
        """
        cutoff = (time.time() if now is None else now) - self._ttl_s
        removed = []
        for path in self._dir.iterdir():
            name = path.name
            if name in self._downloading:
                continue
            try:
                info = path.lstat()
            except OSError:
                continue
            if info.st_mtime > cutoff:
                continue
            if name.startswith("."):
                if name.endswith(_TMP_SUFFIX) and stat.S_ISREG(info.st_mode):
                    self._discard_quietly(path)
                continue
            if not stat.S_ISREG(info.st_mode):
                self._report(name, "not a regular file")
                continue
            try:
                if self._unlink(name):
                    removed.append(name)
            except OSError as exc:
                self._report(name, exc.strerror or type(exc).__name__)
        return removed

    def _report(self, name: str, why: str) -> None:
        if name not in self._reported:
            self._reported.add(name)
            log.warning("output sweep: skipping %r in %s: %s", name, self._dir, why)

    def _discard_quietly(self, path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            self._report(path.name, exc.strerror or type(exc).__name__)

    def _unlink(self, name: str) -> bool:
        try:
            (self._dir / name).unlink()
        except FileNotFoundError:
            return False
        self._delete_later.discard(name)
        self._claimed.discard(name)
        self._sending.discard(name)
        if self._on_removed is not None:
            self._on_removed(name)
        return True

    # --- downloads in flight -----------------------------------------------------------------

    def download_started(self, name: str) -> None:
        self._downloading[name] += 1

    def download_ended(self, name: str) -> None:
        self._downloading[name] -= 1
        if self._downloading[name] <= 0:
            del self._downloading[name]
            if name in self._delete_later:
                self._unlink(name)

    def claim(self, name: str) -> None:
        """A GET is about to send ``name``: every other request gets 409 until ``release``.

        Call it right after ``resolve`` (no await between): that makes the claim atomic.
        """
        self._sending.add(name)

    def release(self, name: str) -> None:
        """The claiming GET ended without completing: the file is downloadable again."""
        self._sending.discard(name)
        self._claimed.discard(name)

    def last_byte(self, name: str, sending: bool) -> None:
        """The last byte of ``name`` is on its way (``sending``), or failed to go: while it is,
        the file is gone (404) for everyone else."""
        if sending:
            self._claimed.add(name)
            self.downloaded(name)
        else:
            self._claimed.discard(name)
            self._downloaded.pop(name, None)

    def downloaded(self, name: str, at: float | None = None) -> None:
        """``name`` went whole to a GET (its last byte is on its way, the file is deleted next):
        later GETs hear when (410)."""
        # Not under self._lock: save() holds it while it writes files, and this runs on the
        # event loop; each dict operation is atomic, and save() only drops a name it rewrites.
        self._downloaded[name] = time.time() if at is None else at
        self._downloaded.move_to_end(name)
        while len(self._downloaded) > DOWNLOADED_KEPT:
            self._downloaded.popitem(last=False)

    def delete_when_idle(self, name: str) -> None:
        """Delete ``name`` now, or when the last download of it in flight ends."""
        if self._downloading.get(name):
            self._delete_later.add(name)
        else:
            self._unlink(name)

    @property
    def active_downloads(self) -> int:
        return sum(self._downloading.values())


class UploadStore:
    """Uploaded PDFs, one file per job, deleted when the job ends."""

    def __init__(self, directory: Path) -> None:
        self._dir = directory

    def prepare(self, keep: Collection[str] = ()) -> None:
        """Create the directory and remove every upload but those of the jobs in ``keep``
        (unfinished jobs, which run again at the next start): the rest would never be read."""
        self._dir.mkdir(parents=True, exist_ok=True)
        kept = {f"{job_id}.pdf" for job_id in keep}
        for leftover in self._dir.iterdir():
            if leftover.is_file() and leftover.name not in kept:
                leftover.unlink(missing_ok=True)

    def _path(self, job_id: str) -> Path:
        if not job_id.isalnum():
            raise ValueError(f"bad job id {job_id!r}")
        return self._dir / f"{job_id}.pdf"

    def save(self, job_id: str, data: bytes) -> None:
        """Store the upload completely, or leave nothing (``DiskFullError`` on a full disk)."""
        write_file(self._path(job_id), data, self._dir)

    def load(self, job_id: str) -> bytes:
        return self._path(job_id).read_bytes()

    def discard(self, job_id: str) -> None:
        self._path(job_id).unlink(missing_ok=True)

    def names(self) -> list[str]:
        return sorted(p.name for p in self._dir.iterdir())


def content_disposition(name: str, inline: bool) -> str:
    """``attachment`` (or ``inline``) with an ASCII fallback and the exact UTF-8 ``filename*``."""
    fallback = "".join(
        c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in name
    )
    kind = "inline" if inline else "attachment"
    return f"{kind}; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


class DownloadResponse(FileResponse):
    """A PDF download that tells ``on_finish(completed)`` whether a full 200 GET sent its last
    byte.

    Starlette runs a response's background task even when the client went away mid-transfer;
    deleting then would lose a file the plugin is about to fetch again (it retries downloads).
    So completion is tracked here: a HEAD, a range request or a cancelled transfer never counts.
    ``on_finish`` runs in every case; ``on_last_byte(True)`` just before the last byte of a 200
    GET goes out, ``on_last_byte(False)`` if it could not.
    """

    def __init__(
        self,
        path: Path,
        name: str,
        *,
        inline: bool,
        on_finish: Callable[[bool], None],
        on_last_byte: Callable[[bool], None] | None = None,
    ) -> None:
        super().__init__(
            path,
            # A saved glossary (``saveGlossary``) is the one output that is no PDF.
            media_type="text/csv; charset=utf-8" if name.endswith(".csv") else "application/pdf",
            headers={
                "content-disposition": content_disposition(name, inline),
                "cache-control": "no-store",
            },
        )
        self._on_finish = on_finish
        self._on_last_byte = on_last_byte

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        status = 0
        last_byte_sent = False

        async def tracking_send(message: Message) -> None:
            nonlocal status, last_byte_sent
            last = message["type"] == "http.response.body" and not message.get("more_body")
            claim = (
                last
                and status == 200
                and scope.get("method") == "GET"
                and self._on_last_byte is not None
            )
            if claim and self._on_last_byte is not None:
                # Before the client can hold the whole file, so it can never GET it twice.
                self._on_last_byte(True)
            try:
                await send(message)
            except BaseException:
                if claim and self._on_last_byte is not None:
                    self._on_last_byte(False)
                raise
            if message["type"] == "http.response.start":
                status = message["status"]
            elif last:
                last_byte_sent = True

        try:
            await super().__call__(scope, receive, tracking_send)
        finally:
            self._on_finish(last_byte_sent and status == 200 and scope.get("method") == "GET")


async def sweep_forever(store: OutputStore, interval_s: float) -> None:
    """Run ``store.sweep()`` every ``interval_s`` seconds until cancelled.

    On the loop's thread, on purpose (see the module docstring); it only lists and unlinks.
    """
    while True:
        await asyncio.sleep(interval_s)
        try:
            removed = store.sweep()
        except OSError as exc:
            log.warning("output sweep failed: %s", exc)
            continue
        for name in removed:
            log.info("deleted %s: not downloaded within ZT_OUTPUT_TTL_S", name)


def sweep_interval(ttl_s: float) -> float:
    """Sweep often enough that a file outlives its TTL by at most about a quarter of it."""
    return min(60.0, max(0.05, ttl_s / 4))

"""The server's terminal: a start-up banner and one line per job (started, done, failed).

A user who ran ``zotero-translate serve`` reads here where the page is, which model URL the
server uses, which vLLM manager runs and why, and what each paper did. The lines go through
uvicorn's own server logger, so they look like, and sit among, uvicorn's lines (``INFO:``)
and follow ``serve``'s log level.
"""

from __future__ import annotations

import logging

from common.redact import mask_secrets
from common.settings import Settings
from zotero_server import __version__
from zotero_server.job import Job

CONSOLE = logging.getLogger("uvicorn.error")


def banner_lines(settings: Settings, manager_line: str, hosts: list[str] | None) -> list[str]:
    """What ``serve`` prints once it is up: address, model URL, manager and why."""
    address = f"http://{_url_host(settings.host)}:{settings.port}/"
    lines = [
        f"zotero-translate {__version__}: the page and the Zotero plugin's address: {address}",
    ]
    if hosts:
        lines.append(f"model    {settings.llm_model} on {len(hosts)} GPU hosts: {', '.join(hosts)}")
    else:
        lines.append(f"model    {settings.llm_model} at {mask_secrets(settings.llm_base_url)}")
    lines.append(f"manager  {manager_line}")
    return lines


def print_banner(settings: Settings, manager_line: str, hosts: list[str] | None) -> None:
    for line in banner_lines(settings, manager_line, hosts):
        CONSOLE.info("%s", line)


def job_started(job: Job) -> None:
    CONSOLE.info("job %s started: %s", _short(job), job.file_name)


def job_ended(job: Job) -> None:
    """One line: done with its files and time, or failed with the reason the user sees."""
    took = ""
    if job.started_at is not None and job.finished_at is not None:
        took = f" in {job.finished_at - job.started_at:.0f} s"
    if job.error is None:
        files = ", ".join(job.files) or "no files"
        CONSOLE.info("job %s done%s: %s -> %s", _short(job), took, job.file_name, files)
    else:
        CONSOLE.warning("job %s failed%s: %s: %s", _short(job), took, job.file_name, job.message)


def _short(job: Job) -> str:
    return job.id[:8]


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host

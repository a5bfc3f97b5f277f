"""The page-preview endpoints (``zotero_server.previews`` has the rules).

* ``GET /api/tasks/{id}/pages``: the pages the task typesets, each with its number, state
  (``waiting``, ``typesetting``, ``done``) and preview URLs (null until there is one), and the
  URL of the partial PDF while it runs. Counts as watching the task for a while.
* ``GET /api/tasks/{id}/pages/{n}.png?key=...&view=thumb|large|original``: one image.
* ``GET /api/tasks/{id}/partial.pdf``: the pages done so far, the rest as the original pages,
  while the task runs (409 once it has ended: its files are the downloads). It never claims or
  deletes an output: the plugin's one GET of each file is untouched.

All of them need the API token as downloads do (``routes.require_token``), and none may be
embedded by another site (``Cross-Origin-Resource-Policy``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from zotero_server.files import content_disposition
from zotero_server.http_errors import NotFoundError, NotReadyError, TaskFinishedError
from zotero_server.previews import JobPreviews, View
from zotero_server.services import Services

router = APIRouter()

_PRIVATE = {"cache-control": "private, max-age=300", "cross-origin-resource-policy": "same-origin"}


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def _task_previews(request: Request, task_id: str) -> tuple[Any, JobPreviews | None]:
    services = _services(request)
    job = services.registry.get(task_id)
    if job is None:
        raise NotFoundError(f"no such task: {task_id[:40]}")
    board = services.previews
    return job, board.get(task_id) if board is not None else None


@router.get("/api/tasks/{task_id}/pages")
async def pages(request: Request, task_id: str) -> dict[str, Any]:
    """The pages the task typesets so far: each page's number, state (``waiting``,
    ``typesetting``, ``done``) and image URLs (null until there is one), and ``partial``, the
    partial PDF's URL while the task runs. Asking counts as watching the task for 30 s."""
    job, previews = _task_previews(request, task_id)
    board = _services(request).previews
    if board is not None and not job.finished:
        board.looked(task_id)
    running = previews is not None and not previews.ended and not job.finished
    return {
        "status": "success",
        "taskId": task_id,
        "finished": job.finished,
        "pages": previews.listing() if previews is not None else [],
        "partial": f"/api/tasks/{task_id}/partial.pdf" if running else None,
    }


@router.get("/api/tasks/{task_id}/pages/{page}.png")
async def page_image(request: Request, task_id: str, page: int) -> Response:
    """One page's image (PNG): ``?key=`` the task's random key (a wrong one is 404),
    ``view=thumb|large|original``."""
    _, previews = _task_previews(request, task_id)
    key = request.query_params.get("key", "")
    view = request.query_params.get("view", View.THUMB)
    if previews is None or not previews.key_matches(key):
        raise NotFoundError(f"no preview of page {page} of this task")
    data = await previews.image(page, view)
    return Response(data, media_type="image/png", headers=_PRIVATE)


@router.get("/api/tasks/{task_id}/partial.pdf")
async def partial_pdf(request: Request, task_id: str) -> Response:
    """The pages done so far, the rest as the original pages, while the task runs (409 once it
    has ended: its files are the downloads). It never claims or deletes an output."""
    job, previews = _task_previews(request, task_id)
    if previews is None and job.finished:
        raise TaskFinishedError("the task has ended: download its files instead")
    if previews is None:
        raise NotReadyError("nothing is typeset yet: the task is queued or reading its paper")
    data = await previews.partial_pdf()
    stem = job.file_name[:-4] if job.file_name.lower().endswith(".pdf") else job.file_name
    headers = {
        "cache-control": "no-store",
        "cross-origin-resource-policy": "same-origin",
        "content-disposition": content_disposition(f"{stem}-so-far.pdf", inline=True),
    }
    return Response(data, media_type="application/pdf", headers=headers)

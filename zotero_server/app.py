"""create_app(settings): the ASGI application (the Zotero issue fills in the routes)."""

from __future__ import annotations

from fastapi import FastAPI

from common.settings import Settings
from zotero_server import __version__


def create_app(settings: Settings) -> FastAPI:
    app = FastAPI(title="zotero-translate", version=__version__)
    app.state.settings = settings

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    return app

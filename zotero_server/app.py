"""create_app(settings): the ASGI application: routes, error handlers, middleware, static files.

What the app runs on is built and closed by its lifespan (``zotero_server.lifespan``).
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from common.settings import Settings
from translation.model import glossary as glossaries
from zotero_server import __version__, http_errors
from zotero_server.data_lock import DataDirLock
from zotero_server.lifespan import make_lifespan
from zotero_server.plugin_paths import PluginPaths
from zotero_server.reader_routes import router as reader_router
from zotero_server.routes import STATIC_DIR, router
from zotero_server.web_guard import HostPolicy, WebGuard


def create_app(
    settings: Settings,
    *,
    sse_ping_s: float = 15.0,
    status_poll_s: float = 5.0,
    shutdown_grace_s: float = 10.0,
    data_lock: DataDirLock | None = None,
) -> FastAPI:
    """The Zotero-facing application. Keyword knobs exist for tests; ``serve`` uses defaults.

    ``data_lock``: the data folder, already taken by the caller (``serve`` takes it before
    uvicorn starts); without one, the lifespan takes it and the start fails with
    ``DataDirInUseError`` when another server holds it.
    Raises ``ConfigError`` when ``ZT_GLOSSARY`` cannot be used (before anything starts).
    """
    glossary = glossaries.from_settings(settings)

    app = FastAPI(
        title="zotero-translate",
        version=__version__,
        lifespan=make_lifespan(
            settings,
            glossary,
            sse_ping_s=sse_ping_s,
            status_poll_s=status_poll_s,
            shutdown_grace_s=shutdown_grace_s,
            data_lock=data_lock,
        ),
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.settings = settings
    http_errors.install(app)
    app.include_router(router)
    app.include_router(reader_router)  # selections from reader plugins (reader_routes)
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
    # Added first, so it runs second: after PluginPaths has normalised the path.
    app.add_middleware(WebGuard, policy=HostPolicy(settings.host, settings.allowed_host_names))
    app.add_middleware(PluginPaths)
    return app

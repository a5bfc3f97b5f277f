"""The generated parts of ``docs/``: the HTTP reference in ``docs/api.md`` (from the two apps'
OpenAPI schemas) and the settings table in ``docs/settings.md`` (from the settings object).

Each lives between a begin and an end marker line; the prose around them is written by hand.
``python -m zotero_server.reference_docs`` (``make docs``) rewrites both blocks in place;
``--check`` changes nothing and exits 1 naming the stale pages.
``tests/zotero_server/test_docs.py`` holds the pages equal to what this module generates, so
a new route or setting fails the suite until the pages are regenerated. A route is described
by its endpoint's docstring (its first paragraph): FastAPI puts the docstring into the
schema, and this module takes it from there.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from common.settings import Settings, settings_markdown

DOCS_DIR = Path(__file__).resolve().parent.parent / "docs"
API_PAGE = DOCS_DIR / "api.md"
SETTINGS_PAGE = DOCS_DIR / "settings.md"

_METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


@dataclass(frozen=True)
class Endpoint:
    """One method on one path of an app's schema, as the reference lists it."""

    method: str
    path: str
    description: str
    parameters: tuple[str, ...]

    @property
    def key(self) -> str:
        """How the reference names it, e.g. ``GET /health``."""
        return f"{self.method} {self.path}"


def begin_marker(name: str) -> str:
    return f"<!-- generated:{name} begin: `make docs` rewrites this block; edit the code -->"


def end_marker(name: str) -> str:
    return f"<!-- generated:{name} end -->"


def _prose(docstring: str) -> str:
    """A docstring's first paragraph on one line, in Markdown (``x`` -> `x`, roles dropped)."""
    first = docstring.strip().split("\n\n")[0]
    text = " ".join(line.strip() for line in first.splitlines())
    text = re.sub(r":[a-z]+:`([^`]+)`", r"`\1`", text)
    return text.replace("``", "`").replace("|", "\\|")


def operations(app: FastAPI) -> list[Endpoint]:
    """Every operation of ``app``'s OpenAPI schema (which FastAPI builds even where the app
    serves no ``/openapi.json``), in path order."""
    found: list[Endpoint] = []
    with warnings.catch_warnings():  # GET and HEAD of one endpoint share an operation id
        warnings.simplefilter("ignore", UserWarning)
        paths: dict[str, dict[str, Any]] = app.openapi()["paths"]
    for path, methods in paths.items():
        for method, op in methods.items():
            params = tuple(
                f"{p['name']} ({p['in']})" for p in op.get("parameters", []) if "name" in p
            )
            found.append(Endpoint(method.upper(), path, _prose(op.get("description", "")), params))
    # The schema's order (the order routes are declared in), GET before HEAD on one path.
    first = {path: i for i, path in enumerate(paths)}
    order = {m: i for i, m in enumerate(_METHOD_ORDER)}
    return sorted(found, key=lambda o: (first[o.path], order.get(o.method, len(order))))


def apps() -> list[tuple[str, FastAPI]]:
    """The two servers, each with a heading: the Zotero-facing one and the GPU status API.
    Built with default settings; building one starts nothing (the lifespan does)."""
    from vllm_manager.gpu_api import create_gpu_app
    from zotero_server.app import create_app

    settings = Settings.model_validate({})  # routes do not depend on values
    return [
        ("The Zotero-facing server (`zotero-translate serve`, port 8890)", create_app(settings)),
        (
            "The GPU status API (`zotero-translate gpu-api`, port 8001)",
            create_gpu_app(settings, no_auth=True),
        ),
    ]


def api_reference() -> str:
    """The block of ``docs/api.md``: one table per server, one row per operation."""
    parts: list[str] = []
    for title, app in apps():
        parts += [
            f"### {title}",
            "",
            "| Route | What it does | Parameters |",
            "| --- | --- | --- |",
        ]
        for op in operations(app):
            params = ", ".join(f"`{p}`" for p in op.parameters) or "-"
            parts.append(f"| `{op.key}` | {op.description or '(no docstring)'} | {params} |")
        parts.append("")
    return "\n".join(parts).rstrip("\n")


def settings_reference() -> str:
    """The block of ``docs/settings.md``: one row per setting, with its default."""
    return "| Variable | Default | Meaning |\n| --- | --- | --- |\n" + settings_markdown()


def blocks() -> Iterator[tuple[Path, str, str]]:
    """(page, block name, generated text) for every generated block."""
    yield API_PAGE, "api", api_reference()
    yield SETTINGS_PAGE, "settings", settings_reference()


def current_block(page_text: str, name: str) -> str | None:
    """The text between ``name``'s markers in a page, or None when a marker is missing."""
    begin, end = begin_marker(name), end_marker(name)
    if begin not in page_text or end not in page_text:
        return None
    return page_text.split(begin, 1)[1].split(end, 1)[0].strip("\n")


def replace_block(page_text: str, name: str, generated: str) -> str:
    """The page with ``name``'s block replaced. Raises ValueError when a marker is missing."""
    begin, end = begin_marker(name), end_marker(name)
    if current_block(page_text, name) is None:
        raise ValueError(f"the page has no {begin!r} ... {end!r} lines")
    head, rest = page_text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{generated}\n{end}{tail}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m zotero_server.reference_docs",
        description="Rewrite the generated blocks of docs/api.md and docs/settings.md.",
    )
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = []
    for page, name, generated in blocks():
        text = page.read_text(encoding="utf-8")
        if current_block(text, name) == generated:
            continue
        stale.append(page.name)
        if not args.check:
            page.write_text(replace_block(text, name, generated), encoding="utf-8")
    if args.check and stale:
        print(f"stale: {', '.join(stale)} (run `make docs`)", file=sys.stderr)
        return 1
    for name in stale:
        print(f"rewrote docs/{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

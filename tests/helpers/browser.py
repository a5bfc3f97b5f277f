"""Headless Debian Chromium for the page tests (driven by playwright; no browser download)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags Chromium keeps dialling Google on this closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

#: ``pytestmark`` of a browser test module: marked, and skipped with a reason without Chromium.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium"),
]


def launch(playwright: Any) -> Any:
    """Headless Debian Chromium from a ``sync_playwright()`` handle; the caller closes it."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


# Fixtures for a module of browser tests: import them (``module_browser_fixture``,
# ``browser_fixture``) into a module to use ``browser`` there.


@pytest.fixture(scope="module", name="module_browser")
def module_browser_fixture() -> Iterator[Any]:
    """One Chromium for a module of sync tests. Not one for the session: while playwright's sync
    API is open, its event loop counts as running in this thread, and an asyncio test fails."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(name="browser")
def browser_fixture(module_browser: Any) -> Iterator[Any]:
    """The module's Chromium; every page a test opened (each in its own context, so no cookie
    or storage is shared) is closed after the test. Request it after a server fixture, so the
    pages close before the server stops."""
    yield module_browser
    for context in module_browser.contexts:
        context.close()

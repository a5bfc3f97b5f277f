"""Issue 25: the progress page shows each GPU host (headless Chromium)."""

from __future__ import annotations

from pathlib import Path

from common.settings import ConcurrencyMode, HostConfig, ManagerKind, Settings
from tests.helpers.browser import BROWSER_MARKS, launch
from tests.helpers.server import run_app
from tests.helpers.vllm import FakeVLLMFactory

pytestmark = BROWSER_MARKS


def test_the_page_lists_every_host_with_its_state(settings: Settings, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with FakeVLLMFactory(tmp_path) as factory:
        a = factory.start()
        configured = settings.model_copy(
            update={
                "concurrency_mode": ConcurrencyMode.FIXED,
                "concurrency": 3,
                "hosts": [
                    HostConfig(name="desk", llm_base_url=a.base_url, manager=ManagerKind.NONE),
                    HostConfig(
                        name="attic", llm_base_url="http://127.0.0.1:9/v1", manager=ManagerKind.NONE
                    ),
                ],
            }
        )
        with run_app(configured) as srv, sync_playwright() as pw:
            browser = launch(pw)
            try:
                page = browser.new_page()
                page.goto(srv.url + "/")
                expect(page.locator("#hosts-state")).to_be_visible(timeout=10_000)
                desk = page.locator('#hosts-state .host[data-host="desk"]')
                expect(desk).to_contain_text("desk: ready", timeout=10_000)
                expect(desk).to_contain_text("0/3 in flight")
                expect(page.locator('.host[data-host="attic"]')).to_contain_text("attic: down")
            finally:
                browser.close()

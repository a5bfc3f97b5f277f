"""The GPU dashboard draws the last hours (issue 24 item 5): memory per process, vLLM events."""

from __future__ import annotations

import uuid
from pathlib import Path

from common.settings import Settings
from tests.helpers.browser import BROWSER_MARKS, launch
from tests.helpers.gpu import (
    TOKEN,
    FakeSmi,
    api_settings,
    comfyui_argv,
    running,
    serve_in_thread,
    vllm_serve_argv,
)
from tests.helpers.server import wait_until
from vllm_manager.gpu_api import create_gpu_app

pytestmark = BROWSER_MARKS


def test_dashboard_draws_the_timeline(
    settings: Settings, tmp_path: Path, test_output_dir: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    marker = f"zt-tl-{uuid.uuid4().hex[:8]}"
    fake = FakeSmi(tmp_path / "smi")
    app = create_gpu_app(api_settings(settings, fake, marker))
    with (
        running(comfyui_argv(tmp_path)) as comfy,
        serve_in_thread(app) as url,
        sync_playwright() as pw,
    ):
        fake.set(processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
        with running(vllm_serve_argv(f"/models/{marker}")):
            wait_until(lambda: app.state.timeline.counts["started"] == 1, 20, "vLLM seen")
        wait_until(lambda: app.state.timeline.counts["stopped"] == 1, 20, "vLLM gone")
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(url + f"/#token={TOKEN}")
            series = page.locator("#timeline polygon.series")
            expect(series).to_have_count(1)
            expect(series.first).to_have_attribute("data-name", "ComfyUI")
            expect(page.locator("#timeline line.event.started")).to_have_count(1)
            expect(page.locator("#timeline line.event.stopped")).to_have_count(1)
            expect(page.locator("#timeline-legend")).to_contain_text("ComfyUI")
            expect(page.locator("#timeline-events")).to_contain_text("vLLM started")
            page.screenshot(path=str(test_output_dir / "gpu-timeline.png"), full_page=True)
        finally:
            browser.close()

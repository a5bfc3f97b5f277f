"""The GPU dashboard in headless Chromium: asks for the token, then shows the live status."""

from __future__ import annotations

import uuid
from pathlib import Path

from pydantic import SecretStr

from common.settings import Settings
from tests.helpers.browser import BROWSER_MARKS, launch
from tests.helpers.gpu import FakeSmi, comfyui_argv, running, serve_in_thread, vllm_serve_argv
from vllm_manager.gpu_api import create_gpu_app

TOKEN = "dashboard-token"

pytestmark = BROWSER_MARKS


def test_dashboard_shows_the_process_list(
    settings: Settings, tmp_path: Path, test_output_dir: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    marker = f"zt-dash-{uuid.uuid4().hex[:8]}"
    fake = FakeSmi(tmp_path / "smi")
    app = create_gpu_app(
        settings.model_copy(
            update={
                "nvidia_smi": fake.path,
                "gpu_watch_keywords": marker,
                "gpu_api_token": SecretStr(TOKEN),
            }
        )
    )
    with (
        running(comfyui_argv(tmp_path)) as comfy,
        running(vllm_serve_argv(f"/models/{marker}")) as loading,
        serve_in_thread(app) as url,
        sync_playwright() as pw,
    ):
        fake.set(processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            page.goto(url + "/")
            expect(page.locator("#login")).to_be_visible()
            page.fill("#token", TOKEN)
            page.click("#login button[type=submit]")

            rows = page.locator("#procs tbody tr")
            expect(rows).to_have_count(2)
            expect(rows.nth(0)).to_contain_text(str(comfy.pid))
            expect(rows.nth(0)).to_contain_text("ComfyUI/main.py --listen 127.0.0.1")
            expect(rows.nth(0)).to_contain_text("20.0 GiB")
            expect(rows.nth(1)).to_contain_text(str(loading.pid))
            expect(rows.nth(1)).to_contain_text("watched, not on GPU")
            expect(page.locator("#idle")).to_have_text("IN USE")
            expect(page.locator(".gpu .mem")).to_have_text("20.3 GiB / 31.8 GiB")
            expect(page.locator(".gpu .fill")).to_have_class("fill orange")  # 64 % in use
            page.screenshot(path=str(test_output_dir / "gpu-dashboard.png"), full_page=True)

            # The token is remembered; the page refreshes by itself.
            page.reload()
            expect(page.locator("#login")).to_be_hidden()
            fake.set()  # ComfyUI leaves the GPU; the loading vLLM alone keeps it "in use"
            expect(rows).to_have_count(1, timeout=10_000)
            expect(rows.nth(0)).to_contain_text(str(loading.pid))
            expect(page.locator("#idle")).to_have_text("IN USE")
            loading.kill()
            loading.wait()
            expect(page.locator("#idle")).to_have_text("IDLE", timeout=10_000)
            expect(page.locator("#no-procs")).to_be_visible()
            expect(page.locator(".gpu .fill")).to_have_class("fill green")
            page.screenshot(path=str(test_output_dir / "gpu-dashboard-idle.png"), full_page=True)

            # A phone, given the token once in the URL fragment; 503 shows the reason.
            fake.set(mode="missing")
            phone = browser.new_page(viewport={"width": 390, "height": 780})
            phone.goto(url + f"/#token={TOKEN}")
            expect(phone.locator("#error")).to_contain_text("couldn't communicate")
            expect(phone.locator("#idle")).to_have_text("UNKNOWN")
            fake.set(processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
            expect(phone.locator("#procs tbody tr")).to_have_count(1, timeout=10_000)
            phone.screenshot(path=str(test_output_dir / "gpu-dashboard-phone.png"), full_page=True)

            # A wrong stored token brings the form back with a message.
            page.evaluate("localStorage.setItem('zt-gpu-api-token', 'wrong')")
            page.reload()
            expect(page.locator("#login-error")).to_have_text("The token was rejected.")
        finally:
            browser.close()

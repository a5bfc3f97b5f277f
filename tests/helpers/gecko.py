"""Headless Debian firefox-esr driven through Marionette, for tests that need a real Gecko.

Zotero is a Gecko application: the plugin's requests come from Gecko's privileged ("chrome")
context, which sends neither ``Origin`` nor ``Sec-Fetch-*``; a web page's requests come from
the content context. Marionette runs scripts in either.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.net import free_port, wait_for_port

FIREFOX = shutil.which("firefox-esr")
#: Longest wait for Firefox to open its Marionette port.
STARTUP_S = 60.0
#: Keep Firefox off the network and quiet: no updates, telemetry or first-run pages.
PREFS = {
    "app.update.enabled": False,
    "app.update.disabledForTesting": True,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": '"ignore"',
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "extensions.update.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "toolkit.telemetry.enabled": False,
}


def _user_js(port: int) -> str:
    prefs = {**PREFS, "marionette.port": port}
    lines = []
    for name, value in prefs.items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        lines.append(f'user_pref("{name}", {shown});')
    return "\n".join(lines) + "\n"


@contextmanager
def gecko(tmp: Path) -> Iterator[Any]:
    """A Marionette client of a headless ``firefox-esr`` with a fresh profile under ``tmp``;
    Firefox (its whole process group) is killed when the block ends. Skips with a reason where
    firefox-esr or marionette-driver is missing."""
    if FIREFOX is None:
        pytest.skip("needs firefox-esr (apt-get install firefox-esr)")
    marionette = pytest.importorskip(
        "marionette_driver.marionette", reason="needs marionette-driver (the test extra)"
    )
    port = free_port()
    profile = tmp / "gecko-profile"
    profile.mkdir()
    (profile / "user.js").write_text(_user_js(port))
    log = (tmp / "firefox.log").open("wb")
    command = [FIREFOX, "-headless", "-marionette", "-remote-allow-system-access", "-no-remote"]
    process = subprocess.Popen(
        [*command, "--profile", str(profile)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its content processes share the group: one kill ends all
    )
    client = None
    try:
        _wait_for_marionette(process, port, tmp / "firefox.log")
        client = marionette.Marionette(host="127.0.0.1", port=port)
        client.start_session()
        yield client
    finally:
        if client is not None:
            with suppress(Exception):
                client.delete_session()
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        log.close()


def _wait_for_marionette(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise AssertionError(f"firefox-esr exited with {process.returncode}: {tail}")
        with suppress(TimeoutError):
            wait_for_port(port, timeout=1.0)
            return
    tail = log.read_text(errors="replace")[-2000:]
    raise AssertionError(f"firefox-esr did not open Marionette within {STARTUP_S:g} s: {tail}")

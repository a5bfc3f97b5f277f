"""What a command imports before it does anything: the seconds outside the model (issue 38).

Each check runs a fresh interpreter, since this process has imported everything already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.helpers.vllm import FakeVLLMFactory


def _python(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return proc.stdout.strip().splitlines()[-1]


def test_the_translate_path_imports_no_openai_before_its_first_request() -> None:
    # A cached paper sends no request: the openai package (half a second of pydantic types)
    # is not imported by the command, the engine, nor a client that has sent nothing.
    code = (
        "import sys, zotero_server.translate_command, zotero_server.engine\n"
        "from translation.model.llm import LLMClient\n"
        "LLMClient(base_url='http://127.0.0.1:9/v1', model='m', api_key=None,"
        " prompt_format='chat', timeout_s=1, deadline_s=1, max_attempts=1)\n"
        "print('openai' in sys.modules)\n"
    )
    assert _python("-c", code) == "False"


def test_the_forkserver_preloads_what_each_worker_would_import_again(tmp_path: Path) -> None:
    # multiprocessing runs the parent's main script again in every worker: the entry point's
    # `from zotero_server.cli import main` (the settings, pydantic-settings) is imported once,
    # in the forkserver, instead.
    script = tmp_path / "zotero-translate"
    script.write_text(
        "import json, re, sys\n"
        "from zotero_server.cli import main\n"
        "from common.forkserver import main_imports\n"
        "if __name__ == '__main__':\n"
        "    print(json.dumps(main_imports()))\n"
    )
    assert "zotero_server.cli" in json.loads(_python(str(script)))
    # `python -c` runs nothing again in a worker: nothing to preload.
    assert _python("-c", "from common.forkserver import main_imports; print(main_imports())") == (
        "[]"
    )


def test_a_module_run_with_dash_m_is_not_preloaded_itself(tmp_path: Path) -> None:
    # `python -m zotero_server.cli translate ...`: each worker runs the module again as
    # __mp_main__; imported before in the forkserver, runpy warned on the worker's stderr
    # (the CLI's first line then was that warning, not "waiting for the GPU").
    (tmp_path / "probe_main.py").write_text(
        "import json\n"
        "from zotero_server.cli import main\n"
        "from common.forkserver import main_imports\n"
        "if __name__ == '__main__':\n"
        "    print(json.dumps(main_imports()))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "probe_main"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    preloaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "zotero_server.cli" in preloaded and "probe_main" not in preloaded


def test_the_command_line_module_imports_neither_settings_nor_engine() -> None:
    """Origin: issue 38 (the CLI's forkserver started after the settings and the engine were
    imported, and preloaded the settings it never uses)."""
    # `translate` starts the forkserver first thing, and the forkserver preloads what the
    # command line module imports: pydantic and PyMuPDF are imported where they are used.
    code = (
        "import sys, zotero_server.cli\n"
        "print(sorted(m for m in ('pydantic', 'pymupdf', 'translation', 'httpx')"
        " if m in sys.modules))\n"
    )
    assert _python("-c", code) == "[]"


def test_the_translate_path_leaves_the_pdf_engine_to_the_worker() -> None:
    # The parent sends steps to its PDF worker and reads the replies: the reading's stages,
    # the typesetter and the worker child's engine are imported by the forkserver (once),
    # never by the command or the engine in the parent.
    code = (
        "import sys, zotero_server.translate_command, zotero_server.engine\n"
        "engine = ['translation.worker_child', 'translation.read.pipeline',"
        " 'translation.read.extraction', 'translation.pdf', 'translation.render.typeset']\n"
        "print(sorted(m for m in engine if m in sys.modules))\n"
    )
    assert _python("-c", code) == "[]"
    preloaded = (
        "from common.forkserver import PRELOAD; print('translation.worker_child' in PRELOAD)"
    )
    assert _python("-c", preloaded) == "True"


def test_a_warmed_up_client_imports_nothing_at_its_first_request(tmp_path: Path) -> None:
    """Origin: issue 38 (the server's first request of a paper left 50-90 ms late: the
    client imported the SDK's chat resource at its first request, on the event loop; then
    it made its SDK client there, 40-100 ms more: that is made in the import's thread now)."""
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start()
        code = (
            "import asyncio, json, sys, threading\n"
            "from common.language import Language\n"
            "from translation.model import llm\n"
            f"client = llm.LLMClient(base_url={fake.base_url!r}, model={fake.model!r},"
            " api_key=None, prompt_format='translategemma', timeout_s=30, deadline_s=30,"
            " max_attempts=1)\n"
            "llm.import_sdk_in_background(client)\n"
            "for thread in threading.enumerate():\n"
            "    if thread.name in ('import-openai', 'make-openai-client'): thread.join()\n"
            "made = client._sdk_client\n"
            "before = set(sys.modules)\n"
            "answer = asyncio.run(client.translate('Hello.', Language('en'), Language('ko')))\n"
            "print(json.dumps([bool(answer), made is not None and client._sdk_client is made,"
            " sorted(m for m in set(sys.modules) - before if m.startswith('openai'))]))\n"
        )
        assert json.loads(_python("-c", code)) == [True, True, []]


def test_serve_starts_the_pdf_workers_and_the_sdk_before_the_web_app() -> None:
    """Origin: issue 38 (an upload just after the server answered found its forkserver still
    importing the engine, and the SDK's import on the server's cores: its first request left
    a second late on a busy machine)."""
    # A config that cannot be read stops `serve` before it imports the web app: by then the
    # forkserver is started and the SDK imported, in the background.
    code = (
        "import sys, threading\n"
        "from multiprocessing import forkserver\n"
        "from zotero_server import cli\n"
        "from translation.model import llm\n"
        "code = cli.main(['--config', '/nonexistent/zotero-translate.toml', 'serve'])\n"
        "for thread in threading.enumerate():\n"
        "    if thread.name in ('pdf-warm-up', 'import-openai'): thread.join()\n"
        "print(code, forkserver._forkserver._forkserver_pid is not None,"
        " 'openai.resources.chat.chat' in sys.modules, 'zotero_server.app' in sys.modules)\n"
    )
    assert _python("-c", code) == "2 True True False"

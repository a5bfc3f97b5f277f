"""The JupyterLab terminal client against a real jupyter_server with jupyter_server_terminals."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Iterator

import pytest

from common.errors import JupyterError
from tests.helpers.jupyter import JupyterServer, run_jupyter
from tests.helpers.net import free_port
from vllm_manager import detach
from vllm_manager.jupyter import JupyterTerminals


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory) -> Iterator[JupyterServer]:
    with run_jupyter(tmp_path_factory.mktemp("jupyter")) as server:
        yield server


@pytest.fixture(scope="module")
def restricted_jupyter(tmp_path_factory) -> Iterator[JupyterServer]:
    """Terminals disabled, and only the host name "nothing" counts as local."""
    args = ["--ServerApp.terminals_enabled=False", '--ServerApp.local_hostnames=["nothing"]']
    with run_jupyter(tmp_path_factory.mktemp("jupyter-restricted"), extra_args=args) as server:
        yield server


@pytest.fixture
async def terminals(jupyter) -> AsyncIterator[JupyterTerminals]:
    client = JupyterTerminals(jupyter.url, jupyter.token, timeout_s=15)
    yield client
    await client.aclose()


async def test_run_returns_output_and_exit_status(terminals) -> None:
    result = await terminals.run("zttest1", "echo hello; echo oops >&2; exit 3")
    assert result.exit_code == 3
    assert result.output == "hello\noops\n"


async def test_quoting_survives_the_login_shell(terminals) -> None:
    script = """printf '%s|' "a b" 'it'"'"'s' "$((6 * 7))" 'back\\slash' "한국어" '`x`' '$HOME'"""
    result = await terminals.run("zttest1", script)
    assert result.exit_code == 0
    assert result.output == "a b|it's|42|back\\slash|한국어|`x`|$HOME|"


async def test_named_terminal_is_created_once_and_reused(terminals) -> None:
    first = await terminals.run("zttest2", 'echo "$PPID"')
    second = await terminals.run("zttest2", 'echo "$PPID"')
    assert first.output == second.output, "both scripts ran under the same terminal shell"
    assert (await terminals.list_terminals()).count("zttest2") == 1


async def test_terminal_deleted_under_us_is_created_again(terminals) -> None:
    first = await terminals.run("zttest3", 'echo "$PPID"')
    await terminals.delete_terminal("zttest3")
    assert "zttest3" not in await terminals.list_terminals()
    second = await terminals.run("zttest3", 'echo "$PPID"')
    assert second.exit_code == 0 and second.output != first.output


async def test_detached_process_outlives_its_terminal(terminals, tmp_path) -> None:
    """docs/architecture.md §3: vLLM launched with setsid survives the terminal's deletion."""
    pid_file, log = str(tmp_path / "p.pid"), str(tmp_path / "p.log")
    launched = await terminals.run("zttest4", detach.launch_script("sleep 60", pid_file, log))
    pid = detach.parse_launch(launched.exit_code, launched.output)
    try:
        await terminals.delete_terminal("zttest4")
        assert detach.group_alive_local(pid)
        probe = await terminals.run("zttest4", detach.our_pid_script(pid_file))
        assert detach.parse_pid(probe.output) == pid
    finally:
        detach.signal_group_local(pid, signal.SIGKILL)
    gone = await terminals.run("zttest4", detach.group_alive_script(pid))
    assert gone.output.strip() == "gone"


async def test_script_that_does_not_finish_times_out_clearly(jupyter) -> None:
    client = JupyterTerminals(jupyter.url, jupyter.token, timeout_s=0.5)
    try:
        with pytest.raises(JupyterError, match="gave no answer within 0.5 s"):
            await client.run("zttest5", "sleep 5")
    finally:
        await client.delete_terminal("zttest5")
        await client.aclose()


async def test_wrong_token_is_named(jupyter) -> None:
    client = JupyterTerminals(jupyter.url, "not-the-token")
    with pytest.raises(JupyterError) as caught:
        await client.run("zttest6", "true")
    await client.aclose()
    assert "the token was rejected (HTTP 403)" in str(caught.value)
    assert "ZT_JUPYTER_TOKEN" in str(caught.value)


async def test_missing_token_is_named(jupyter) -> None:
    client = JupyterTerminals(jupyter.url, None)
    with pytest.raises(JupyterError, match="no token is set"):
        await client.list_terminals()
    await client.aclose()


async def test_jupyter_down_is_named() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    client = JupyterTerminals(url, "t", timeout_s=2)
    with pytest.raises(JupyterError, match=f"Jupyter at {url} is not answering"):
        await client.run("zttest7", "true")
    await client.aclose()


async def test_remote_host_not_allowed_is_named(restricted_jupyter) -> None:
    client = JupyterTerminals(
        f"http://localhost:{restricted_jupyter.port}", restricted_jupyter.token
    )
    with pytest.raises(JupyterError) as caught:
        await client.list_terminals()
    await client.aclose()
    assert "remote access is not allowed" in str(caught.value)
    assert "allow_remote_access=True" in str(caught.value)


async def test_terminals_disabled_is_named(restricted_jupyter) -> None:
    client = JupyterTerminals(restricted_jupyter.url, restricted_jupyter.token)
    with pytest.raises(JupyterError, match="terminals are disabled"):
        await client.run("zttest8", "true")
    await client.aclose()

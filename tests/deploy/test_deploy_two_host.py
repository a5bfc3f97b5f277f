"""deploy/two-host: the two-host homelab's server config and each host's vLLM settings, and
their agreement with the launch profiles and the cluster's Endpoints."""

from __future__ import annotations

import re
import shlex
import tomllib
from ipaddress import ip_address
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from common.settings import Settings, load_settings
from tests.helpers.deploy import DEPLOY, K8S, VLLM, clean_env, kustomize, load_check_ips, run

TWO_HOST = DEPLOY / "two-host"
CONFIG_FILE = TWO_HOST / "zotero-translate.toml"
CONFIG = tomllib.loads(CONFIG_FILE.read_text(encoding="utf-8"))
HOSTS: list[dict[str, Any]] = CONFIG["hosts"]
BASE_LIST = tomllib.loads((K8S / "services.toml").read_text(encoding="utf-8"))

#: The keys a `[[hosts]]` table may use in this example (issue 25 item 1).
HOST_KEYS = {
    "name",
    "llm_base_url",
    "manager",
    "jupyter_url",
    "jupyter_token",
    "gpu_api_url",
    "gpu_api_token",
    "vllm_command",
    "weight",
}

check_ips = load_check_ips()


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname
    assert host is not None, url
    return host == "localhost" or ip_address(host).is_loopback


def _host_settings(host: dict[str, Any]) -> Settings:
    """The host's table as the single-host settings it stands for (what a pool of one runs)."""
    values = {key: value for key, value in host.items() if key not in {"name", "weight"}}
    return load_settings(**values)


def test_the_example_names_only_host_keys_and_real_settings() -> None:
    top_level = {key: value for key, value in CONFIG.items() if key != "hosts"}
    assert set(top_level) <= set(Settings.model_fields), set(top_level) - set(Settings.model_fields)
    assert load_settings(**top_level).prompt_format.value == CONFIG["prompt_format"]
    assert len(HOSTS) == 2
    for host in HOSTS:
        assert set(host) <= HOST_KEYS, f"{host.get('name')}: {set(host) - HOST_KEYS}"
        assert {"name", "llm_base_url", "manager"} <= set(host)
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", host["name"])
        assert host["manager"] in {"local", "remote", "none"}
        weight = host["weight"]
        assert isinstance(weight, int | float) and not isinstance(weight, bool) and weight > 0
    assert len({host["name"] for host in HOSTS}) == len(HOSTS)
    assert set().union(*HOSTS) == HOST_KEYS, "the example shows every host key"


@pytest.mark.parametrize("host", HOSTS, ids=[h["name"] for h in HOSTS])
def test_each_host_table_is_valid_settings_for_its_host(host: dict[str, Any]) -> None:
    """A typo in a value (a manager, a URL) fails here with the server's own message."""
    single = _host_settings(host)
    assert single.manager.value == host["manager"]
    assert single.llm_base_url.endswith("/v1")


def test_the_example_loads_as_the_pool_of_two_hosts() -> None:
    if "hosts" not in Settings.model_fields:
        pytest.skip("needs the pool of several GPU hosts (issue 25): no `hosts` setting yet")
    settings = load_settings(CONFIG_FILE)
    hosts = getattr(settings, "hosts")  # noqa: B009 (no attribute before the pool is merged)
    assert [host.name for host in hosts] == [host["name"] for host in HOSTS]


def test_jupyterlab_is_reached_on_loopback_or_over_the_tailnet_never_the_lan() -> None:
    """A Jupyter terminal is a shell: the remote host's is published with `tailscale serve`."""
    for host in HOSTS:
        url = host["jupyter_url"]
        if host["manager"] == "local":
            assert _is_loopback(url), url
        else:
            parts = urlsplit(url)
            assert parts.scheme == "https" and str(parts.hostname).endswith(".ts.net"), url
        for key in ("llm_base_url", "gpu_api_url"):
            if not _is_loopback(host[key]):
                check_ips.check_lan_ip(str(urlsplit(host[key]).hostname))


def _profile_output(host: dict[str, Any], home: Path, option: str) -> str:
    profile = VLLM / Path(host["vllm_command"]).name
    assert profile.is_file(), f"{host['name']}: no launch profile {profile.name}"
    env_file = TWO_HOST / f"{host['name']}.vllm.env"
    assert env_file.is_file(), f"{host['name']}: no {env_file.name}"
    result = run([profile, option], env=clean_env(home, ZT_VLLM_ENV=str(env_file)))
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_both_hosts_serve_one_model_in_the_servers_prompt_format(tmp_path: Path) -> None:
    """The prompt format and the model name are the server's: every host must match them."""
    models = set()
    for host in HOSTS:
        lines = _profile_output(host, tmp_path, "--settings").splitlines()
        printed = dict(line.split("=", 1) for line in lines if not line.startswith("#"))
        assert printed["ZT_PROMPT_FORMAT"] == CONFIG["prompt_format"], host["name"]
        assert printed["ZT_LLM_MODEL"] == _host_settings(host).llm_model, host["name"]

        argv = shlex.split(_profile_output(host, tmp_path, "--print"))
        options = {word: argv[i + 1] for i, word in enumerate(argv[:-1]) if word[:2] == "--"}
        # The server reaches it over the LAN (box-4090), the cluster too (both): not loopback.
        assert options["--host"] == "0.0.0.0", host["name"]
        assert int(options["--port"]) == urlsplit(host["llm_base_url"]).port, host["name"]
        assert not [word for word in argv if "api-key" in word], "the key stays off argv"
        models.add(Path(argv[2]).name)
    assert len(models) == 1, f"the hosts serve different weights: {models}"


def test_the_vllm_settings_require_a_key_once_on_the_lan() -> None:
    for host in HOSTS:
        text = (TWO_HOST / f"{host['name']}.vllm.env").read_text(encoding="utf-8")
        keys = re.findall(r"^VLLM_API_KEY=(\S+)$", text, flags=re.MULTILINE)
        assert keys, f"{host['name']}: vLLM on 0.0.0.0 without VLLM_API_KEY"


def test_the_cluster_reaches_each_host_where_the_server_does() -> None:
    """Each host's GPU status API and vLLM are Endpoints of the two-host overlay, at the
    address and port the server's config names (the server's own host: the base's LAN IP)."""
    objects = [doc for doc in yaml.safe_load_all(kustomize(K8S / "overlays" / "two-host")) if doc]
    endpoints = {
        (address, port["port"])
        for obj in objects
        if obj["kind"] == "EndpointSlice"
        for endpoint in obj["endpoints"]
        for address in endpoint["addresses"]
        for port in obj["ports"]
    }
    for host in HOSTS:
        for key in ("gpu_api_url", "llm_base_url"):
            url = urlsplit(host[key])
            address = BASE_LIST["lan_ip"] if _is_loopback(host[key]) else url.hostname
            assert (address, url.port) in endpoints, f"{host['name']} {key}: no Endpoints"

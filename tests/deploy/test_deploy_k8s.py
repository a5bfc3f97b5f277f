"""deploy/k8s: the one service list, the LAN-IP check, the Kustomize render and its validity."""

from __future__ import annotations

import shutil
import sys
import tomllib
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from common.settings import ENV_PREFIX, Settings
from tests.helpers.deploy import K8S, kustomize, load_check_ips, run

check_ips = load_check_ips()
SERVICES = tomllib.loads((K8S / "services.toml").read_text(encoding="utf-8"))


def _objects(text: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(text) if doc]


def _by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {obj["metadata"]["name"]: obj for obj in objects if obj["kind"] == kind}


# --- the LAN-IP check ----------------------------------------------------------------------


def test_lan_ip_check_accepts_the_pcs_lan_address_on_the_command_line() -> None:
    result = run([sys.executable, K8S / "check_ips.py", "192.168.31.2"])
    assert result.returncode == 0, result.stderr
    assert "192.168.31.2 is a private LAN address" in result.stdout


def test_lan_ip_check_rejects_a_tailscale_address_with_a_clear_message() -> None:
    result = run([sys.executable, K8S / "check_ips.py", "100.101.102.103"])
    assert result.returncode == 1
    assert "100.101.102.103 is a Tailscale address (CGNAT 100.64.0.0/10)" in result.stderr
    assert "LAN address" in result.stderr


@pytest.mark.parametrize(
    "address", ["192.168.31.2", "10.0.0.7", "172.16.0.1", "172.31.255.254", " 192.168.1.20 "]
)
def test_private_lan_addresses_pass(address: str) -> None:
    assert check_ips.check_lan_ip(address) == IPv4Address(address.strip())


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("100.101.102.103", "Tailscale"),
        ("100.64.0.1", "Tailscale"),
        ("100.127.255.254", "Tailscale"),
        ("8.8.8.8", "not a private LAN address"),
        ("100.63.255.255", "not a private LAN address"),  # just below CGNAT: public
        ("172.32.0.1", "not a private LAN address"),
        ("127.0.0.1", "loopback"),
        ("169.254.10.1", "link-local"),
        ("fd7a:115c:a1e0::1", "IPv6"),  # Tailscale's IPv6 range
        ("192.168.31", "not an IPv4 address"),
        ("192.168.031.2", "not an IPv4 address"),
        ("pc.tailnet.ts.net", "not an IPv4 address"),
    ],
)
def test_non_lan_addresses_are_rejected_with_a_reason(address: str, says: str) -> None:
    with pytest.raises(check_ips.ServiceListError, match=says):
        check_ips.check_lan_ip(address)


def test_the_committed_service_list_passes_the_check() -> None:
    result = run([sys.executable, K8S / "check_ips.py"])
    assert result.returncode == 0, result.stderr
    for entry in SERVICES["service"]:
        assert f"ok: {entry['name']} -> " in result.stdout


def test_a_service_list_names_every_problem_at_once(tmp_path: Path) -> None:
    services = tmp_path / "services.toml"
    services.write_text(
        'lan_ip = "192.168.31.2"\n'
        '[[service]]\nname = "gpu-api"\nport = 8001\nlan_ip = "100.101.102.103"\n'
        '[[service]]\nname = "Bad_Name"\nport = 1\n'
        '[[service]]\nname = "vllm"\nport = 70000\n'
        '[[service]]\nname = "comfyui"\nport = 8188\n'
        '[[service]]\nname = "comfyui"\nport = 8189\n'
        '[[service]]\nname = "asr"\nport = 8188\n'
    )
    with pytest.raises(check_ips.ServiceListError) as caught:
        check_ips.load_services(services)
    message = str(caught.value)
    assert "(gpu-api): 100.101.102.103 is a Tailscale address" in message
    assert "'Bad_Name' must be a DNS label" in message
    assert "(vllm): port 70000" in message
    assert "'comfyui' is listed twice" in message
    assert "asr and comfyui both use 192.168.31.2:8188" in message


# --- the generator -------------------------------------------------------------------------


def test_the_committed_render_is_up_to_date_with_the_list() -> None:
    result = run([sys.executable, K8S / "render.py", "--check"])
    assert result.returncode == 0, result.stderr


def test_render_refuses_a_tailscale_address_and_writes_nothing(tmp_path: Path) -> None:
    services = tmp_path / "services.toml"
    services.write_text('[[service]]\nname = "vllm"\nport = 8000\nlan_ip = "100.101.102.103"\n')
    output = tmp_path / "lan-services.yaml"
    result = run([sys.executable, K8S / "render.py", "--services", services, "--output", output])
    assert result.returncode == 1
    assert "Tailscale address" in result.stderr
    assert not output.exists()


def test_check_mode_reports_a_stale_render(tmp_path: Path) -> None:
    output = tmp_path / "lan-services.yaml"
    output.write_text("# edited by hand\n")
    result = run([sys.executable, K8S / "render.py", "--check", "--output", output])
    assert result.returncode == 1
    assert "is stale" in result.stderr
    assert "run `python3 deploy/k8s/render.py --output " in result.stderr
    assert output.read_text() == "# edited by hand\n"


def test_one_line_in_the_list_becomes_three_objects_in_the_kustomize_output(
    tmp_path: Path,
) -> None:
    """The list really is the source: a copy of the base with one more entry renders it."""
    copy = tmp_path / "k8s"
    shutil.copytree(
        K8S, copy, ignore=shutil.ignore_patterns("overlays", "__pycache__", ".mypy_cache")
    )
    with (copy / "services.toml").open("a") as services:
        services.write('\n[[service]]\nname = "ollama"\nport = 11434\nlan_ip = "10.1.2.3"\n')
    result = run([sys.executable, copy / "render.py"])
    assert result.returncode == 0, result.stderr

    objects = _objects(kustomize(copy))
    service = _by_kind(objects, "Service")["ollama"]
    endpoints = _by_kind(objects, "Endpoints")["ollama"]
    endpoint_slice = _by_kind(objects, "EndpointSlice")["ollama-lan"]
    assert service["spec"]["ports"][0]["port"] == 11434
    assert endpoints["subsets"][0]["addresses"] == [{"ip": "10.1.2.3"}]
    assert endpoint_slice["endpoints"][0]["addresses"] == ["10.1.2.3"]


# --- the rendered base ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def base_objects() -> list[dict[str, Any]]:
    return _objects(kustomize(K8S))


def test_each_listed_service_renders_as_selectorless_service_endpoints_and_slice(
    base_objects: list[dict[str, Any]],
) -> None:
    services = _by_kind(base_objects, "Service")
    endpoints = _by_kind(base_objects, "Endpoints")
    slices = {
        obj["metadata"]["labels"]["kubernetes.io/service-name"]: obj
        for obj in base_objects
        if obj["kind"] == "EndpointSlice"
    }
    default_ip = SERVICES["lan_ip"]
    expected = {entry["name"] for entry in SERVICES["service"]}
    assert set(services) == set(endpoints) == set(slices) == expected
    for entry in SERVICES["service"]:
        name, port, ip = entry["name"], entry["port"], entry.get("lan_ip", default_ip)
        service, endpoint, endpoint_slice = services[name], endpoints[name], slices[name]
        assert "selector" not in service["spec"], f"{name}: a selector would drop our endpoints"
        [service_port] = service["spec"]["ports"]
        assert service_port["port"] == port
        assert endpoint["subsets"] == [
            {
                "addresses": [{"ip": ip}],
                "ports": [{"name": service_port["name"], "port": port, "protocol": "TCP"}],
            }
        ]
        # A slice port serves the Service port whose name matches exactly.
        assert endpoint_slice["ports"] == [
            {"name": service_port["name"], "port": port, "protocol": "TCP"}
        ]
        assert endpoint_slice["addressType"] == "IPv4"
        assert endpoint_slice["endpoints"][0]["addresses"] == [ip]
        # Without skip-mirror, the mirroring controller would add a duplicate slice.
        assert endpoint["metadata"]["labels"]["endpointslice.kubernetes.io/skip-mirror"] == "true"
        for obj in (service, endpoint, endpoint_slice):
            assert obj["metadata"]["namespace"] == service["metadata"]["namespace"]


def test_every_address_in_the_render_is_a_lan_address(base_objects: list[dict[str, Any]]) -> None:
    addresses = [
        address["ip"]
        for obj in base_objects
        if obj["kind"] == "Endpoints"
        for subset in obj["subsets"]
        for address in subset["addresses"]
    ] + [
        address
        for obj in base_objects
        if obj["kind"] == "EndpointSlice"
        for endpoint in obj["endpoints"]
        for address in endpoint["addresses"]
    ]
    assert len(addresses) == 2 * len(SERVICES["service"])
    for address in addresses:
        check_ips.check_lan_ip(address)


def test_the_base_creates_no_namespace(base_objects: list[dict[str, Any]]) -> None:
    """`kubectl delete -k` must never take the shared namespace (and n8n) with it."""
    assert not [obj for obj in base_objects if obj["kind"] == "Namespace"]


# --- the in-cluster overlay ----------------------------------------------------------------


@pytest.fixture(scope="module")
def overlay_objects() -> list[dict[str, Any]]:
    return _objects(kustomize(K8S / "overlays" / "in-cluster"))


def test_in_cluster_overlay_runs_the_server_behind_a_selector_service(
    overlay_objects: list[dict[str, Any]],
) -> None:
    deployment = _by_kind(overlay_objects, "Deployment")["zotero-translate"]
    service = _by_kind(overlay_objects, "Service")["zotero-translate"]
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    # The hand-written endpoints of the LAN version are gone; the other services stay.
    assert "zotero-translate" not in _by_kind(overlay_objects, "Endpoints")
    assert "zotero-translate-lan" not in _by_kind(overlay_objects, "EndpointSlice")
    assert {"gpu-api", "vllm"} <= set(_by_kind(overlay_objects, "Endpoints"))

    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"]["type"] == "Recreate"
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    port = container["ports"][0]
    assert port["containerPort"] == service["spec"]["ports"][0]["targetPort"] == 8890
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/health", "port": port["name"]}


def test_in_cluster_overlay_takes_tokens_from_a_secret_and_data_from_a_volume(
    overlay_objects: list[dict[str, Any]],
) -> None:
    deployment = _by_kind(overlay_objects, "Deployment")["zotero-translate"]
    pod = deployment["spec"]["template"]["spec"]
    [container] = pod["containers"]
    secret_refs = [src["secretRef"]["name"] for src in container["envFrom"] if "secretRef" in src]
    assert secret_refs == ["zotero-translate-tokens"]
    claims = {
        volume["name"]: volume["persistentVolumeClaim"]["claimName"]
        for volume in pod["volumes"]
        if "persistentVolumeClaim" in volume
    }
    assert claims
    assert set(claims.values()) <= set(_by_kind(overlay_objects, "PersistentVolumeClaim"))
    data_mount = [m for m in container["volumeMounts"] if m["name"] in claims]
    [config] = [o for o in overlay_objects if o["kind"] == "ConfigMap"]
    # Kustomize appends a content hash to the generated name; the reference must follow it.
    config_refs = [s["configMapRef"]["name"] for s in container["envFrom"] if "configMapRef" in s]
    assert config_refs == [config["metadata"]["name"]]
    assert [m["mountPath"] for m in data_mount] == [config["data"]["ZT_DATA_DIR"]]
    assert not [o for o in overlay_objects if o["kind"] == "Secret"], "tokens stay out of git"


def test_in_cluster_settings_are_real_settings(
    overlay_objects: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A misspelt ZT_ variable would be ignored silently; every key must name a setting."""
    from common.settings import load_settings

    [config] = [o for o in overlay_objects if o["kind"] == "ConfigMap"]
    known = {ENV_PREFIX + name.upper() for name in Settings.model_fields}
    assert set(config["data"]) <= known
    for key, value in config["data"].items():
        monkeypatch.setenv(key, value)
    settings = load_settings()
    assert settings.manager.value == "remote"
    assert settings.gpu_api_url == "http://gpu-api:8001"


# --- validity for a current Kubernetes ----------------------------------------------------


def test_kubernetes_validate_accepts_every_rendered_object(
    base_objects: list[dict[str, Any]], overlay_objects: list[dict[str, Any]]
) -> None:
    version = kubernetes_validate.latest_version()
    for obj in base_objects + overlay_objects:
        kubernetes_validate.validate(obj, version, strict=True)


def test_kubernetes_validate_is_not_a_rubber_stamp(base_objects: list[dict[str, Any]]) -> None:
    [endpoint_slice, *_] = [o for o in base_objects if o["kind"] == "EndpointSlice"]
    broken = {**endpoint_slice, "endpoints": [{"address": ["192.168.31.2"]}]}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, kubernetes_validate.latest_version(), strict=True)


# --- the two-host overlay ------------------------------------------------------------------

TWO_HOST = K8S / "overlays" / "two-host"
SECOND_HOST_LIST = TWO_HOST / "box-4090" / "services.toml"
SECOND_HOST = tomllib.loads(SECOND_HOST_LIST.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def two_host_objects() -> list[dict[str, Any]]:
    return _objects(kustomize(TWO_HOST))


def _endpoint_ips_by_port(objects: list[dict[str, Any]]) -> dict[int, set[str]]:
    ips: dict[int, set[str]] = {}
    for obj in objects:
        if obj["kind"] == "Endpoints":
            for subset in obj["subsets"]:
                for port in subset["ports"]:
                    ips.setdefault(port["port"], set()).update(a["ip"] for a in subset["addresses"])
    return ips


def test_the_second_hosts_render_is_up_to_date_with_its_list() -> None:
    result = run([sys.executable, K8S / "render.py", "--check", "--services", SECOND_HOST_LIST])
    assert result.returncode == 0, result.stderr


def test_a_list_outside_the_base_renders_beside_itself_with_its_own_command(
    tmp_path: Path,
) -> None:
    """Rendering another list never overwrites the base, and its header says how to remake it."""
    base_render = (K8S / "base" / "lan-services.yaml").read_text()
    second_list = TWO_HOST / "box-4090" / "services.toml"
    services = tmp_path / "services.toml"
    services.write_text(second_list.read_text())
    result = run([sys.executable, K8S / "render.py", "--services", services])
    assert result.returncode == 0, result.stderr
    rendered = (tmp_path / "lan-services.yaml").read_text()
    assert f"#   python3 deploy/k8s/render.py --services {services}\n" in rendered
    assert (K8S / "base" / "lan-services.yaml").read_text() == base_render
    committed = (TWO_HOST / "box-4090" / "lan-services.yaml").read_text()
    assert (
        "#   python3 deploy/k8s/render.py --services "
        "deploy/k8s/overlays/two-host/box-4090/services.toml\n" in committed
    )


def test_two_host_endpoints_list_both_hosts_gpu_api_and_vllm(
    two_host_objects: list[dict[str, Any]],
) -> None:
    first, second = SERVICES["lan_ip"], SECOND_HOST["lan_ip"]
    assert first != second
    ips = _endpoint_ips_by_port(two_host_objects)
    assert ips[8001] == {first, second}, "a GPU status API on each host"
    assert ips[8000] == {first, second}, "a vLLM on each host"
    assert ips[8890] == {first}, "the translation server on the first host only"
    # One address per Service: a status API answers for its own card, and the cluster's proxy
    # would spread requests over a vLLM that is asleep or stopped.
    services = _by_kind(two_host_objects, "Service")
    for name, endpoints in _by_kind(two_host_objects, "Endpoints").items():
        assert [len(s["addresses"]) for s in endpoints["subsets"]] == [1], name
        assert "selector" not in services[name]["spec"], name
    slices = [o for o in two_host_objects if o["kind"] == "EndpointSlice"]
    assert {o["metadata"]["labels"]["kubernetes.io/service-name"] for o in slices} == set(services)
    # The base's services keep their names (what n8n and friends already call) and labels.
    expected = {e["name"] for e in SERVICES["service"]} | {
        e["name"] for e in SECOND_HOST["service"]
    }
    assert set(services) == expected
    part_of = {
        name: obj["metadata"]["labels"]["app.kubernetes.io/part-of"]
        for name, obj in services.items()
    }
    for entry in SERVICES["service"]:
        assert part_of[entry["name"]] == "gpu-pc"
    for entry in SECOND_HOST["service"]:
        assert part_of[entry["name"]] == "box-4090"
    assert {o["metadata"]["namespace"] for o in two_host_objects} == {"homelab"}
    assert not [o for o in two_host_objects if o["kind"] == "Namespace"]


def test_every_address_of_the_two_host_render_is_a_lan_address(
    two_host_objects: list[dict[str, Any]],
) -> None:
    for addresses in _endpoint_ips_by_port(two_host_objects).values():
        for address in addresses:
            check_ips.check_lan_ip(address)
    for obj in two_host_objects:
        if obj["kind"] == "EndpointSlice":
            for endpoint in obj["endpoints"]:
                for address in endpoint["addresses"]:
                    check_ips.check_lan_ip(address)


def test_kubernetes_validate_accepts_the_two_host_overlay(
    two_host_objects: list[dict[str, Any]],
) -> None:
    version = kubernetes_validate.latest_version()
    for obj in two_host_objects:
        kubernetes_validate.validate(obj, version, strict=True)

#!/usr/bin/env python3
"""Load and check the one list of GPU-side services (``services.toml``).

Contract: :func:`check_lan_ip` accepts only a private IPv4 LAN address (RFC 1918: 10.0.0.0/8,
172.16.0.0/12, 192.168.0.0/16) and raises :class:`ServiceListError` with a message that says
what the address is and what to use instead. A Tailscale address (CGNAT 100.64.0.0/10) gets its
own message: cluster nodes are not on the tailnet, so a Service pointing there silently
black-holes traffic (the seeds made that mistake twice). :func:`load_services` returns the
validated list or raises :class:`ServiceListError` naming every problem.

Standard library only, so it runs with any ``python3`` (3.11+) without the project installed.

Command line::

    python3 deploy/k8s/check_ips.py                 # check services.toml beside this file
    python3 deploy/k8s/check_ips.py --services F    # check another list
    python3 deploy/k8s/check_ips.py 192.168.31.2    # check addresses

Exit status: 0 all good, 1 a rejected address or list, 2 usage error or unreadable file.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, ip_address
from pathlib import Path

DEFAULT_SERVICES = Path(__file__).resolve().parent / "services.toml"

TAILSCALE_CGNAT = IPv4Network("100.64.0.0/10")
PRIVATE_LAN = (
    IPv4Network("10.0.0.0/8"),
    IPv4Network("172.16.0.0/12"),
    IPv4Network("192.168.0.0/16"),
)
WHERE_TO_LOOK = (
    "use the GPU PC's LAN address (Windows: `ipconfig`, the IPv4 Address of the Ethernet or "
    "Wi-Fi adapter, e.g. 192.168.31.2)"
)

# A Kubernetes Service name is a DNS-1035 label.
_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")


class ServiceListError(ValueError):
    """An address or the service list is unusable; the message says why and what to do."""


@dataclass(frozen=True)
class LanService:
    """One GPU-side service reached from the cluster at ``lan_ip:port``."""

    name: str
    port: int
    lan_ip: IPv4Address
    description: str = ""


def check_lan_ip(value: str) -> IPv4Address:
    """Return ``value`` as an address if it is a private IPv4 LAN address, else raise."""
    text = value.strip()
    try:
        address = ip_address(text)
    except ValueError:
        raise ServiceListError(f"{value!r} is not an IPv4 address; {WHERE_TO_LOOK}") from None
    if not isinstance(address, IPv4Address):
        raise ServiceListError(
            f"{text} is an IPv6 address; Windows portproxy forwards IPv4 here: {WHERE_TO_LOOK}"
        )
    if address in TAILSCALE_CGNAT:
        raise ServiceListError(
            f"{text} is a Tailscale address (CGNAT 100.64.0.0/10): cluster nodes are not on "
            f"the tailnet and the portproxy does not listen there, so the Service would "
            f"black-hole every request; {WHERE_TO_LOOK}"
        )
    if address.is_loopback:
        raise ServiceListError(
            f"{text} is a loopback address: inside the cluster it means the pod itself; "
            f"{WHERE_TO_LOOK}"
        )
    if address.is_link_local:
        raise ServiceListError(
            f"{text} is a link-local address (169.254.0.0/16), not a LAN address; {WHERE_TO_LOOK}"
        )
    if not any(address in net for net in PRIVATE_LAN):
        raise ServiceListError(
            f"{text} is not a private LAN address (10.0.0.0/8, 172.16.0.0/12, "
            f"192.168.0.0/16); {WHERE_TO_LOOK}"
        )
    return address


def load_services(path: Path) -> list[LanService]:
    """Read and validate a service list; raise ``ServiceListError`` listing every problem.

    The file has an optional top-level ``lan_ip`` (the default for every service) and one
    ``[[service]]`` table per service with ``name``, ``port`` and optionally ``lan_ip`` and
    ``description``.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ServiceListError(f"{path}: invalid TOML: {exc}") from None
    problems: list[str] = []
    default_ip = data.get("lan_ip")
    entries = data.get("service")
    if not isinstance(entries, list) or not entries:
        raise ServiceListError(f"{path}: no [[service]] entries")
    services: list[LanService] = []
    for index, entry in enumerate(entries, start=1):
        service = _parse_entry(entry, default_ip, problems, f"{path}: service #{index}")
        if service is not None:
            services.append(service)
    _check_unique(services, problems, path)
    if problems:
        raise ServiceListError("\n".join(problems))
    return services


def _parse_entry(
    entry: object, default_ip: object, problems: list[str], where: str
) -> LanService | None:
    if not isinstance(entry, dict):
        problems.append(f"{where}: not a table")
        return None
    unknown = set(entry) - {"name", "port", "lan_ip", "description"}
    if unknown:
        problems.append(f"{where}: unknown keys {sorted(unknown)}")
    name = entry.get("name")
    if not isinstance(name, str) or not _DNS_LABEL.match(name):
        problems.append(
            f"{where}: name {name!r} must be a DNS label (lowercase letters, digits and '-', "
            f"starting with a letter, at most 63 characters)"
        )
        return None
    where = f"{where} ({name})"
    port = entry.get("port")
    # bool is an int subclass; `port = true` is a typo, not port 1.
    if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
        problems.append(f"{where}: port {port!r} must be an integer from 1 to 65535")
        return None
    raw_ip = entry.get("lan_ip", default_ip)
    if not isinstance(raw_ip, str):
        problems.append(f"{where}: lan_ip is missing (set it here or at the top of the file)")
        return None
    try:
        lan_ip = check_lan_ip(raw_ip)
    except ServiceListError as exc:
        problems.append(f"{where}: {exc}")
        return None
    description = entry.get("description", "")
    if not isinstance(description, str):
        problems.append(f"{where}: description must be a string")
        return None
    return LanService(name=name, port=port, lan_ip=lan_ip, description=description)


def _check_unique(services: list[LanService], problems: list[str], path: Path) -> None:
    names: set[str] = set()
    endpoints: dict[tuple[IPv4Address, int], str] = {}
    for service in services:
        if service.name in names:
            problems.append(f"{path}: service name {service.name!r} is listed twice")
        names.add(service.name)
        key = (service.lan_ip, service.port)
        if key in endpoints:
            problems.append(
                f"{path}: {service.name} and {endpoints[key]} both use "
                f"{service.lan_ip}:{service.port}; one port proxy cannot serve both"
            )
        endpoints.setdefault(key, service.name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check that the GPU services are listed with private LAN addresses."
    )
    parser.add_argument("addresses", nargs="*", help="addresses to check instead of the list")
    parser.add_argument(
        "--services", type=Path, default=DEFAULT_SERVICES, help="service list (TOML)"
    )
    args = parser.parse_args(argv)
    if args.addresses:
        failed = 0
        for value in args.addresses:
            try:
                print(f"ok: {check_lan_ip(value)} is a private LAN address")
            except ServiceListError as exc:
                print(f"rejected: {exc}", file=sys.stderr)
                failed += 1
        return 1 if failed else 0
    try:
        services = load_services(args.services)
    except OSError as exc:
        print(f"cannot read {args.services}: {exc.strerror}", file=sys.stderr)
        return 2
    except ServiceListError as exc:
        print(f"rejected:\n{exc}", file=sys.stderr)
        return 1
    for service in services:
        print(f"ok: {service.name} -> {service.lan_ip}:{service.port}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

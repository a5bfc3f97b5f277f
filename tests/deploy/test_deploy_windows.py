"""deploy/windows: the WSL port-proxy script. Windows itself is not here, so these check that
the script parses (PowerShell's own parser when pwsh is installed, else a tree-sitter grammar)
and that it agrees with the cluster's service list."""

from __future__ import annotations

import re
import shutil
import tomllib

import pytest

from tests.helpers.deploy import K8S, WINDOWS, run

SCRIPT = WINDOWS / "wsl-portproxy.ps1"


def test_powershell_parser_accepts_the_script() -> None:
    pwsh = shutil.which("pwsh")
    if not pwsh:
        pytest.skip("needs pwsh (PowerShell 7) on PATH")
    check = (
        "$errors = $null; "
        "[System.Management.Automation.Language.Parser]::ParseFile("
        f"'{SCRIPT}', [ref]$null, [ref]$errors) | Out-Null; "
        "if ($errors) { $errors | ForEach-Object { $_.ToString() }; exit 1 }"
    )
    result = run([pwsh, "-NoProfile", "-NonInteractive", "-Command", check])
    assert result.returncode == 0, result.stdout + result.stderr


def test_powershell_grammar_finds_no_syntax_error() -> None:
    tree_sitter = pytest.importorskip("tree_sitter", reason="needs tree-sitter (PyPI)")
    grammar = pytest.importorskip(
        "tree_sitter_powershell", reason="needs tree-sitter-powershell (PyPI)"
    )
    parser = tree_sitter.Parser(tree_sitter.Language(grammar.language()))
    assert parser.parse(b"if ($a) { Write-Host 'x'\n").root_node.has_error  # it can fail
    tree = parser.parse(SCRIPT.read_bytes())
    errors = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            errors.append(f"line {node.start_point[0] + 1}: {node.text[:60]!r}")
        stack.extend(node.children)
    assert errors == []


def test_default_ports_are_the_ports_of_the_cluster_service_list() -> None:
    match = re.search(r"\[int\[\]\] \$Ports = @\(([\d, ]+)\)", SCRIPT.read_text())
    assert match, "the -Ports default is not where this test looks"
    script_ports = {int(port) for port in match.group(1).split(",")}
    services = tomllib.loads((K8S / "services.toml").read_text())
    assert script_ports == {entry["port"] for entry in services["service"]}

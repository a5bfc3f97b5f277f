from __future__ import annotations

from pathlib import Path

import pytest

from common.errors import ConfigError
from common.language import Language
from common.settings import ManagerKind, PromptFormat, load_settings


def test_defaults_match_the_readme(tmp_path: Path) -> None:
    s = load_settings()
    assert s.llm_base_url == "http://127.0.0.1:8000/v1"
    assert s.llm_model == "google/translategemma-27b-it"
    assert s.prompt_format is PromptFormat.TRANSLATEGEMMA
    assert (s.source_lang, s.target_lang) == (Language.parse("en"), Language.parse("ko"))
    assert s.concurrency == 8
    assert s.manager is ManagerKind.AUTO
    assert s.port == 8890
    assert s.data_dir == tmp_path / "xdg-data" / "zotero-translate"


def test_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZT_TARGET_LANG", "ja")
    monkeypatch.setenv("ZT_CONCURRENCY", "3")
    monkeypatch.setenv("ZT_LLM_BASE_URL", "http://gpu:8000/v1/")
    s = load_settings()
    assert s.target_lang == Language.parse("ja")
    assert s.concurrency == 3
    assert s.llm_base_url == "http://gpu:8000/v1"


def test_toml_file_and_env_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cfg = tmp_path / "zt.toml"
    cfg.write_text('target_lang = "zh-CN"\nconcurrency = 5\nmanager = "local"\n')
    monkeypatch.setenv("ZT_CONFIG", str(cfg))
    monkeypatch.setenv("ZT_CONCURRENCY", "7")
    s = load_settings()
    assert s.target_lang == Language.parse("zh-CN")
    assert s.manager is ManagerKind.LOCAL
    assert s.concurrency == 7  # the environment beats the file


def test_bad_values_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZT_CONCURRENCY", "zero")
    with pytest.raises(ConfigError, match="ZT_CONCURRENCY"):
        load_settings()


def test_unknown_key_in_toml_is_rejected(tmp_path: Path) -> None:
    cfg = tmp_path / "zt.toml"
    cfg.write_text("concurency = 5\n")
    with pytest.raises(ConfigError, match="CONCURENCY"):
        load_settings(cfg)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.toml")


def test_settings_command_lists_every_setting(capsys: pytest.CaptureFixture[str]) -> None:
    from common.settings import Settings
    from zotero_server.cli import main

    assert main(["settings"]) == 0
    listed = capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--help-settings"])
    assert capsys.readouterr().out == listed
    for name in Settings.model_fields:
        assert f"ZT_{name.upper()}" in listed
    # A subcommand's --help is about that command: the settings list is one command away.
    with pytest.raises(SystemExit):
        main(["translate", "--help"])
    help_text = capsys.readouterr().out
    assert "ZT_LLM_BASE_URL" not in help_text and len(help_text.splitlines()) < 45


def test_the_default_config_file_is_read_when_present(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from common.paths import default_config_path

    toml = default_config_path()
    assert toml == tmp_path / "xdg-config" / "zotero-translate" / "config.toml"
    assert load_settings().llm_base_url == "http://127.0.0.1:8000/v1"  # absent: defaults
    toml.parent.mkdir(parents=True)
    toml.write_text('llm_base_url = "http://friend:8000/v1"\nmax_jobs = 3\n')
    assert load_settings().llm_base_url == "http://friend:8000/v1"
    monkeypatch.setenv("ZT_MAX_JOBS", "5")  # the environment wins over the file
    assert load_settings().max_jobs == 5
    other = tmp_path / "other.toml"
    other.write_text("max_jobs = 7\n")
    monkeypatch.delenv("ZT_MAX_JOBS")
    assert load_settings(other).max_jobs == 7  # --config wins over the default file
    assert load_settings(other).llm_base_url == "http://127.0.0.1:8000/v1"


def test_a_broken_default_config_file_is_named(tmp_path: Path) -> None:
    from common.paths import default_config_path

    toml = default_config_path()
    toml.parent.mkdir(parents=True)
    toml.write_text("max_jobs = [\n")
    with pytest.raises(ConfigError, match=f"invalid config file {toml}"):
        load_settings()
    toml.write_text("max_jobs = 0\nllm_base_urll = 'x'\n")
    with pytest.raises(ConfigError) as bad:
        load_settings()
    assert "ZT_LLM_BASE_URLL" in str(bad.value) and str(toml) in str(bad.value)


def test_unknown_variables_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from common.settings import unknown_environment

    monkeypatch.setenv("ZT_CONCURENCY", "5")
    monkeypatch.setenv("ZT_CONFIG", "/nonexistent-but-known")
    assert unknown_environment() == ["ZT_CONCURENCY"]

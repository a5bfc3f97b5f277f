"""deploy/vllm: the TranslateGemma launch profiles for 24, 32 and 48+ GB cards."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from common.settings import DEFAULT_VLLM_COMMAND, ENV_PREFIX, Settings, load_settings
from tests.helpers.deploy import PROFILES, VLLM, clean_env, run

# The flags issue 7 asks every profile to set (and explain).
REQUIRED_FLAGS = [
    "--max-model-len",
    "--gpu-memory-utilization",
    "--max-num-seqs",
    "--kv-cache-dtype",
    "--chat-template-content-format",
    "--generation-config",
]


def _argv(profile: Path, home: Path, **env: str) -> list[str]:
    result = run([profile, "--print"], env=clean_env(home, **env))
    assert result.returncode == 0, result.stderr
    return shlex.split(result.stdout)


#: Flags without a value (issue 11 added sleep mode to every profile).
SWITCHES = {"--enable-sleep-mode"}


def _options(argv: list[str]) -> dict[str, str]:
    assert argv[1] == "serve"
    flags = [flag for flag in argv[3:] if flag not in SWITCHES]
    assert len(flags) % 2 == 0, flags
    return dict(zip(flags[::2], flags[1::2], strict=True))


def _settings_lines(profile: Path, home: Path) -> dict[str, str]:
    result = run([profile, "--settings"], env=clean_env(home))
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if not line.startswith("#")]
    return dict(line.split("=", 1) for line in lines)


def test_the_32gb_profile_is_the_default_command(tmp_path: Path) -> None:
    default = shlex.split(DEFAULT_VLLM_COMMAND.replace("$HOME", str(tmp_path)))
    assert _argv(PROFILES[32], tmp_path) == default


@pytest.mark.parametrize("gb", sorted(PROFILES))
def test_profile_sets_every_memory_and_template_flag(gb: int, tmp_path: Path) -> None:
    argv = _argv(PROFILES[gb], tmp_path)
    options = _options(argv)
    assert [flag for flag in REQUIRED_FLAGS if flag not in options] == []
    lines = _settings_lines(PROFILES[gb], tmp_path)
    # The template's content format follows the checkpoint's prompt format.
    content_format = {"translategemma": "openai", "delimited": "string"}
    assert options["--chat-template-content-format"] == content_format[lines["ZT_PROMPT_FORMAT"]]
    assert options["--generation-config"] == "vllm"
    assert json.loads(options["--limit-mm-per-prompt"]) == {"image": 0}
    assert 0.5 < float(options["--gpu-memory-utilization"]) < 0.95
    # The model card's 2K input length, with room for the answer; never the 128K default.
    assert 2048 <= int(options["--max-model-len"]) <= 8192
    assert options["--served-model-name"] == lines["ZT_LLM_MODEL"]
    assert "--enable-sleep-mode" in argv, "sleep mode lets the idle GPU change hands in seconds"
    profile, shared = PROFILES[gb].read_text(), (VLLM / "_launch.sh").read_text()
    for flag in REQUIRED_FLAGS:
        # Each flag has a comment line right above it that says why: in the profile, or in
        # _launch.sh for the flags every profile shares.
        text = profile if f"  {flag}" in profile else shared
        before = text[: text.index(f"  {flag}")].rstrip().splitlines()[-1]
        assert before.strip().startswith("#"), f"{gb} GB: {flag} is not explained"


def test_bigger_cards_get_more_concurrency(tmp_path: Path) -> None:
    seqs = [int(_options(_argv(PROFILES[gb], tmp_path))["--max-num-seqs"]) for gb in (24, 32, 48)]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3


@pytest.mark.parametrize("gb", sorted(PROFILES))
def test_settings_match_the_profile_and_load(
    gb: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _settings_lines(PROFILES[gb], tmp_path)
    known = {ENV_PREFIX + name.upper() for name in Settings.model_fields}
    assert set(lines) <= known
    for key, value in lines.items():
        monkeypatch.setenv(key, value)
    settings = load_settings()
    options = _options(_argv(PROFILES[gb], tmp_path))
    assert settings.concurrency_max == int(options["--max-num-seqs"])
    assert settings.vllm_command == str(PROFILES[gb])
    assert settings.llm_base_url == f"http://127.0.0.1:{options['--port']}/v1"
    assert settings.llm_model == options["--served-model-name"]


def _fake_vllm(tmp_path: Path) -> tuple[Path, Path]:
    """An executable that records its pid, argv and VLLM_API_KEY, standing in for vLLM."""
    record = tmp_path / "record.json"
    fake = tmp_path / "bin" / "vllm"
    fake.parent.mkdir()
    fake.write_text(
        "#!/usr/bin/env python3\n"
        "import json, os, sys\n"
        f"json.dump({{'pid': os.getpid(), 'argv': sys.argv[1:],"
        f" 'key': os.environ.get('VLLM_API_KEY')}}, open({str(record)!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    return fake, record


def test_profile_execs_vllm_so_the_launched_pid_is_vllm(tmp_path: Path) -> None:
    """The manager stops vLLM by the pid it launched; a shell in between would survive it."""
    fake, record = _fake_vllm(tmp_path)
    model = tmp_path / "model"
    model.mkdir()
    env = clean_env(tmp_path, VLLM_BIN=str(fake), MODEL=str(model))
    process = subprocess.Popen([PROFILES[32], "--enforce-eager"], env=env)
    assert process.wait(timeout=30) == 0
    seen = json.loads(record.read_text())
    assert seen["pid"] == process.pid
    assert seen["argv"][:2] == ["serve", str(model)]
    assert seen["argv"][-1] == "--enforce-eager"


def test_per_host_file_sets_host_and_keeps_the_api_key_off_the_command_line(
    tmp_path: Path,
) -> None:
    fake, record = _fake_vllm(tmp_path)
    config = tmp_path / ".config" / "zotero-translate"
    config.mkdir(parents=True)
    (config / "vllm.env").write_text(
        f"VLLM_BIN={fake}\nMODEL=google/translategemma-27b-it\n"
        "VLLM_HOST=0.0.0.0\nVLLM_API_KEY=s3cret-key\n"
    )
    result = run([PROFILES[24]], env=clean_env(tmp_path))
    assert result.returncode == 0, result.stderr
    seen = json.loads(record.read_text())
    assert _options(["vllm", *seen["argv"]])["--host"] == "0.0.0.0"
    assert seen["key"] == "s3cret-key"
    assert "s3cret-key" not in " ".join(seen["argv"])
    # A client on this machine still connects to 127.0.0.1, not to 0.0.0.0.
    assert _settings_lines(PROFILES[24], tmp_path)["ZT_LLM_BASE_URL"].startswith(
        "http://127.0.0.1:"
    )


def test_missing_vllm_says_where_it_looked(tmp_path: Path) -> None:
    result = run([PROFILES[32]], env=clean_env(tmp_path))
    assert result.returncode == 127
    assert f"vLLM not found at {tmp_path}/vllm/.venv/bin/vllm" in result.stderr


def test_missing_model_folder_says_where_it_looked(tmp_path: Path) -> None:
    fake, record = _fake_vllm(tmp_path)
    result = run([PROFILES[48]], env=clean_env(tmp_path, VLLM_BIN=str(fake)))
    assert result.returncode == 2
    assert f"no model at {tmp_path}/models/translategemma-27b-it-fp8" in result.stderr
    assert not record.exists()


def test_profiles_pass_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if not shellcheck:
        pytest.skip("needs shellcheck (Debian package shellcheck)")
    result = run([shellcheck, "-x", *(str(p) for p in PROFILES.values())])
    assert result.returncode == 0, result.stdout


def test_profiles_name_published_checkpoints_and_their_prompt_format(tmp_path: Path) -> None:
    # The Infomaniak builds (W4A16 by upshift) change the template: the server must send the
    # delimited format to them and Google's content part to Google's checkpoint and its
    # quantizations.
    expected = {
        16: ("upshift/infomaniak-translategemma-12b-it-W4A16", "delimited"),
        24: ("upshift/infomaniak-translategemma-27b-it-W4A16", "delimited"),
        32: ("henry1477/translategemma-27b-it-NVFP4A16", "translategemma"),
    }
    for gb, (checkpoint, prompt_format) in expected.items():
        result = run([PROFILES[gb], "--print"], env=clean_env(tmp_path))
        assert checkpoint in result.stderr, gb  # "# weights: huggingface.co/..."
        assert _settings_lines(PROFILES[gb], tmp_path)["ZT_PROMPT_FORMAT"] == prompt_format
    assert Settings.model_fields["prompt_format"].default == "translategemma"  # the 32 GB default

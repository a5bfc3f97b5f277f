"""The one typed settings object.

Every setting is an environment variable with the prefix ``ZT_`` (``ZT_LLM_BASE_URL`` for
``llm_base_url``) or a key of an optional TOML file: the one named by ``--config`` or
``ZT_CONFIG``, else the default file (:func:`default_config_path`) when it exists.
Precedence: explicit keyword arguments > environment > TOML file > defaults.
Build it once with :func:`load_settings` and pass it down; nothing else reads the environment.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    SecretStr,
    ValidationError,
    field_validator,
)
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from common.errors import ConfigError, UnsupportedLanguageError
from common.language import Language
from common.paths import default_config_path
from common.vllm_identity import VLLMKeywords, command_port

ENV_PREFIX = "ZT_"


class PromptFormat(StrEnum):
    TRANSLATEGEMMA = "translategemma"
    #: Infomaniak's vLLM builds of TranslateGemma (and the W4A16 builds made from them):
    #: a plain string ``<<<source>>>en<<<target>>>ko<<<text>>>...``.
    DELIMITED = "delimited"
    CHAT = "chat"


class ManagerKind(StrEnum):
    AUTO = "auto"
    NONE = "none"
    LOCAL = "local"
    REMOTE = "remote"


class IdleAction(StrEnum):
    STOP = "stop"
    SLEEP = "sleep"
    AUTO = "auto"


class ConcurrencyMode(StrEnum):
    FIXED = "fixed"
    ADAPTIVE = "adaptive"


def _language(value: Any) -> Language:
    if isinstance(value, Language):
        return value
    if not isinstance(value, str) or not value.strip():
        raise ValueError("a language code is required")
    try:
        return Language.parse(value)
    except UnsupportedLanguageError as exc:
        raise ValueError(str(exc)) from None


#: A language setting: a code as users write it (``zh-CN``), parsed once when settings load.
LanguageSetting = Annotated[Language, NoDecode, PlainValidator(_language), PlainSerializer(str)]


def default_data_dir() -> Path:
    """Per-user data directory (XDG on Linux): cache, outputs, leases."""
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "zotero-translate"


# TranslateGemma 27B on a 32 GB card (deploy/vllm/ has the 24 GB and 48 GB profiles and the
# reasons for every flag). Absolute paths: a Jupyter terminal runs a login shell that resets PATH.
DEFAULT_VLLM_COMMAND = (
    "$HOME/vllm/.venv/bin/vllm serve $HOME/models/translategemma-27b-it-nvfp4a16"
    " --served-model-name google/translategemma-27b-it"
    " --host 127.0.0.1 --port 8000"
    " --max-model-len 4096 --max-num-seqs 32 --max-num-batched-tokens 4096"
    " --gpu-memory-utilization 0.90 --kv-cache-dtype fp8"
    " --limit-mm-per-prompt '{\"image\":0}'"
    " --chat-template-content-format openai --generation-config vllm"
    " --scheduling-policy priority"
    " --enable-sleep-mode"
)


class HostConfig(BaseModel):
    """One GPU host of ``ZT_HOSTS`` (a ``[[hosts]]`` table of the TOML file).

    Its keys are the lower-case names of the settings they stand for on that host; a key left
    out takes the top-level setting. ``weight`` is the host's relative speed (1 = the
    reference card): among hosts with room it breaks ties, and among hosts to bring up it
    says which first. ``wake_s``/``start_s``: what waking / starting its vLLM is expected to
    take; a host is brought up for running work only while the queue would take longer.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
    llm_base_url: str
    manager: ManagerKind | None = None
    jupyter_url: str | None = None
    jupyter_token: SecretStr | None = None
    jupyter_terminal: str | None = None
    gpu_api_url: str | None = None
    gpu_api_token: SecretStr | None = None
    vllm_command: str | None = None
    vllm_workdir: str | None = None
    vllm_match_keywords: str | None = None
    gpu_watch_keywords: str | None = None
    nvidia_smi: Path | None = None
    llm_api_key: SecretStr | None = None
    concurrency: int | None = Field(default=None, ge=1, le=1024)
    weight: float = Field(default=1.0, gt=0, le=100)
    wake_s: float = Field(default=20.0, ge=0)
    start_s: float = Field(default=180.0, ge=0)

    @field_validator("llm_base_url", "gpu_api_url", "jupyter_url")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        return None if value is None else value.strip().rstrip("/") or None


class Settings(BaseSettings):
    """All ``ZT_*`` settings. Field docs are shown by ``zotero-translate --help``."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        extra="forbid",
        validate_default=True,
        case_sensitive=False,
    )

    # --- LLM -----------------------------------------------------------------------------
    llm_base_url: str = Field(
        "http://127.0.0.1:8000/v1", description="OpenAI-compatible base URL (vLLM)"
    )
    llm_model: str = Field("google/translategemma-27b-it", description="Served model name")
    llm_api_key: SecretStr | None = Field(None, description="API key for the LLM server")
    prompt_format: PromptFormat = Field(
        PromptFormat.TRANSLATEGEMMA,
        description="translategemma (one content part with language codes), delimited "
        "(Infomaniak's vLLM builds: <<<source>>>..<<<target>>>..<<<text>>>..) or chat",
    )
    llm_timeout_s: float = Field(120.0, gt=0, description="Timeout of one LLM request")
    llm_retry_deadline_s: float = Field(
        300.0, gt=0, description="Give up retrying one paragraph after this many seconds"
    )
    llm_max_attempts: int = Field(6, ge=1, description="Attempts per paragraph (1 = no retry)")
    llm_paper_priority: int = Field(
        1,
        ge=0,
        description="vLLM request priority of a paper's paragraphs (a reader's selection sends"
        " 0, lower is served first): with vLLM's --scheduling-policy priority a selection passes"
        " the paragraphs queued inside vLLM; a vLLM without it refuses the field once, then it"
        " is left out; 0 never sends it",
    )
    request_max_tokens: int = Field(
        1000,
        ge=64,
        description="Longest request, in estimated tokens: a longer paragraph is sent as runs"
        " of whole sentences",
    )

    # --- Translation ---------------------------------------------------------------------
    source_lang: LanguageSetting = Field(Language("en"), description="Source language code")
    target_lang: LanguageSetting = Field(Language("ko"), description="Target language code")
    concurrency: int = Field(8, ge=1, le=1024, description="Max LLM requests in flight (fixed)")
    concurrency_mode: ConcurrencyMode = Field(
        ConcurrencyMode.ADAPTIVE, description="adaptive (from vLLM /metrics) or fixed"
    )
    concurrency_min: int = Field(
        2, ge=1, description="Adaptive mode: lower bound and starting point"
    )
    concurrency_max: int = Field(64, ge=1, description="Adaptive mode: upper bound")
    concurrency_reserve: int = Field(
        1,
        ge=0,
        description="Adaptive mode: vLLM batch slots a paper leaves free, so a reader's"
        " selection starts at the next engine step (vLLM never preempts for a waiting"
        " request): below vLLM's batch size once seen; before, below the --max-num-seqs of"
        " ZT_VLLM_COMMAND where the server starts vLLM, else below ZT_CONCURRENCY_MAX (the"
        " launch profiles set it to their --max-num-seqs); 0 fills every slot",
    )
    data_dir: Path = Field(
        default_factory=default_data_dir,
        description="Cache, outputs and leases; papers' readings in readings/ (the 200 used"
        " last, 256 MiB at most: a paper sent again is not read again)",
    )
    max_upload_mb: float = Field(
        100.0, gt=0, description="Largest accepted PDF, in MiB (1 MiB = 1,048,576 bytes)"
    )
    glossary: Path | None = Field(
        None,
        description="CSV of source,target[,language] terms translated exactly in every job"
        " (read at start)",
    )

    # --- Zotero-facing server ------------------------------------------------------------
    host: str = Field("127.0.0.1", description="Bind address of `serve`")
    port: int = Field(8890, ge=1, le=65535, description="Port of `serve`")
    api_token: SecretStr | None = Field(
        None, description="Optional Bearer token for the Zotero-facing API"
    )
    allowed_hosts: str = Field(
        "",
        description="Comma-separated extra Host names the server answers to (* = any)",
    )
    allow_open_bind: bool = Field(
        False, description="Allow a non-loopback ZT_HOST without ZT_API_TOKEN"
    )
    request_read_timeout_s: float = Field(
        30.0,
        gt=0,
        description="Longest a client may take to send a request head, or pause in a body",
    )
    request_body_timeout_s: float = Field(
        900.0, gt=0, description="Longest a client may take to send one request body"
    )
    max_jobs: int = Field(
        2, ge=1, description="Jobs doing PDF work at once (as many again may wait for LLM answers)"
    )
    output_ttl_s: float = Field(
        86400.0, gt=0, description="Delete outputs never downloaded after this many seconds"
    )
    max_queued: int = Field(
        20, ge=0, description="Jobs waiting for a slot; more are refused (503, Retry-After)"
    )
    max_uploads: int = Field(
        4, ge=1, description="Uploads read and checked at once; more are refused (503)"
    )

    # --- reader plugins: selections, annotations, titles (docs/zotero-reader-plugins.md) ----
    reader_wait_s: float = Field(
        20.0,
        ge=0,
        description="A selection's request waits this long for a busy or starting GPU",
    )
    reader_max_chars: int = Field(
        8000, ge=1, le=200_000, description="Most characters one selection request may send"
    )
    chat_target_lang: LanguageSetting | None = Field(
        None,
        description="Target of a chat request that names none (unset = ZT_TARGET_LANG)",
    )

    # --- PDF work (a worker process per job) ---------------------------------------------
    pdf_max_pages: int = Field(2000, ge=1, description="Refuse PDFs with more pages (400)")
    pdf_max_page_spans: int = Field(
        50000, ge=1, description="Refuse a page with more text spans (400)"
    )
    pdf_max_page_chars: int = Field(
        200000, ge=1, description="Refuse a page with more characters of text (400)"
    )
    pdf_max_text_chars: int = Field(
        10_000_000, ge=1, description="Refuse a PDF with more characters of text in all (400)"
    )
    pdf_worker_memory_mb: int = Field(
        3072, ge=0, description="Address-space limit of a PDF worker process (0 = none)"
    )
    pdf_timeout_s: float = Field(
        300.0, gt=0, description="Max seconds of one PDF step (read, typeset a page, save)"
    )
    font_dir: Path = Field(
        Path("/usr/share/fonts/opentype/noto"),
        description="Folder of the Noto Serif/Sans CJK fonts (Debian: fonts-noto-cjk) for"
        " Chinese, Japanese and Korean translations; the built-in font where they are missing",
    )
    ocr: Literal["auto", "always", "never"] = Field(
        "auto",
        description="Read pages by OCR (Tesseract): auto = scanned pages without text only",
    )
    ocr_dpi: int = Field(
        300,
        ge=72,
        le=600,
        description="Resolution scanned pages are read at by OCR: 300 reads 7 pt print;"
        " lower reads faster (a page's time goes with its pixels)",
    )
    ocr_page_timeout_s: float = Field(
        120.0, gt=0, description="Max seconds of the OCR of one page (on top of a step's time)"
    )
    ocr_max_pages: int = Field(
        100, ge=1, description="Refuse a job with more scanned pages to read by OCR (fails at once)"
    )
    ocr_max_seconds: float = Field(
        900.0, gt=0, description="Max seconds of OCR in all for one job's document"
    )

    # --- GPU status ----------------------------------------------------------------------
    gpu_api_url: str | None = Field(
        None, description="GPU status API base URL; unset = probe this host in process"
    )
    gpu_api_token: SecretStr | None = Field(None, description="Bearer token of the GPU API")
    gpu_api_host: str = Field("127.0.0.1", description="Bind address of `gpu-api`")
    gpu_api_port: int = Field(8001, ge=1, le=65535, description="Port of `gpu-api`")
    nvidia_smi: Path | None = Field(
        None, description="Absolute path of nvidia-smi (else PATH, then WSL and /usr/bin)"
    )
    smi_timeout_s: float = Field(5.0, gt=0, description="Timeout of one nvidia-smi call")
    gpu_watch_keywords: str = Field(
        "vllm,VLLM::,translategemma,ComfyUI,whisper",
        description="Comma-separated command-line keywords of GPU services to report",
    )
    gpu_idle_mib: int = Field(1024, ge=0, description="GPU counts as idle below this memory")
    gpu_timeline_interval_s: float = Field(
        10.0, ge=0.05, le=3600, description="`gpu-api` samples the GPU this often for /timeline"
    )
    gpu_timeline_hours: float = Field(
        6.0, gt=0, le=168, description="Hours of GPU samples `gpu-api` keeps (in memory)"
    )

    # --- vLLM manager --------------------------------------------------------------------
    manager: ManagerKind = Field(
        ManagerKind.AUTO,
        description="auto (remote when ZT_JUPYTER_URL is set; local when this machine has an "
        "NVIDIA GPU, the vLLM of ZT_VLLM_COMMAND and its model; else none), local, remote or none",
    )
    vllm_command: str = Field(DEFAULT_VLLM_COMMAND, description="Command that starts vLLM")
    vllm_match_keywords: str = Field(
        "vllm,VLLM::,translategemma",
        description="Comma-separated command-line keywords that mark a vLLM process",
    )
    vllm_workdir: str = Field(
        "", description="Where the pid and log files of a launched vLLM go (default data dir)"
    )
    vllm_ready_timeout_s: float = Field(900.0, gt=0, description="Max wait for vLLM health")
    vllm_lease_s: float = Field(
        900.0, gt=0, description="A start lease counts as 'loading' for this long"
    )
    vllm_idle_shutdown_s: float = Field(
        900.0, ge=0, description="Stop our own vLLM after this idle time (0 = never)"
    )
    vllm_idle_action: IdleAction = Field(
        IdleAction.AUTO,
        description="After the idle time: stop, sleep (level 1, weights to host RAM) or auto "
        "(sleep when vLLM runs with sleep mode and host RAM holds the weights)",
    )
    vllm_weights_gb: float = Field(
        17.5, gt=0, description="Size of the model weights (host RAM a level-1 sleep needs)"
    )
    vllm_max_sleep_cycles: int = Field(
        8, ge=1, description="Restart vLLM fresh after this many sleeps (allocator leaks)"
    )
    vllm_stop_grace_s: float = Field(30.0, ge=0, description="SIGTERM to SIGKILL grace")
    gpu_poll_s: float = Field(5.0, gt=0, description="Re-check a busy GPU this often")
    gpu_wait_s: float = Field(600.0, ge=0, description="Wait this long for a busy GPU")
    job_gpu_wait_s: float = Field(
        10800.0,
        ge=0,
        description="Async jobs and `translate --wait-gpu` wait this long for a busy GPU",
    )
    jupyter_url: str | None = Field(None, description="JupyterLab base URL for launching vLLM")
    jupyter_token: SecretStr | None = Field(None, description="JupyterLab token")
    jupyter_terminal: str = Field("ztvllm", description="Name of the reused Jupyter terminal")
    hosts: list[HostConfig] = Field(
        default_factory=list,
        description="Several GPU hosts: `[[hosts]]` tables in the TOML file, or a JSON list"
        " (docs/gpu.md, Several GPU hosts); empty = the one host the settings above describe",
    )

    @field_validator("hosts")
    @classmethod
    def _unique_hosts(cls, value: list[HostConfig]) -> list[HostConfig]:
        names = [host.name for host in value]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"host names must be unique; given twice: {', '.join(twice)}")
        return value

    @field_validator("glossary", mode="before")
    @classmethod
    def _unset_if_empty(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("llm_base_url", "gpu_api_url", "jupyter_url")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        return value or None

    @property
    def upload_limit_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @property
    def allowed_host_names(self) -> list[str]:
        return _split_csv(self.allowed_hosts)

    @property
    def watch_keywords(self) -> list[str]:
        return _split_csv(self.gpu_watch_keywords)

    @property
    def vllm_keywords(self) -> VLLMKeywords:
        """The keywords, and the port our launch command names: a vLLM on another port is
        someone else's (``common.vllm_identity``)."""
        return VLLMKeywords(_split_csv(self.vllm_match_keywords), command_port(self.vllm_command))

    @property
    def cache_path(self) -> Path:
        return self.data_dir / "cache.sqlite3"

    @property
    def outputs_dir(self) -> Path:
        return self.data_dir / "outputs"

    @property
    def reading_cache_dir(self) -> Path:
        """Where the PDF workers keep papers' readings (``translation.reading_cache``)."""
        return self.data_dir / "readings"

    @property
    def manager_dir(self) -> Path:
        return Path(self.vllm_workdir) if self.vllm_workdir else self.data_dir / "vllm"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if _toml_path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=_toml_path))
        return tuple(sources)


def mib(n_bytes: int | float) -> str:
    """A size in the unit of ``ZT_MAX_UPLOAD_MB`` (MiB), for messages: ``"1.5 MiB"``."""
    value = n_bytes / 2**20
    return f"{value:.1f} MiB" if value >= 0.1 else f"{value:.2g} MiB"


def _split_csv(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


# Set only for the duration of load_settings(); pydantic-settings builds sources from the class.
_toml_path: Path | None = None


def load_settings(config: Path | str | None = None, **overrides: Any) -> Settings:
    """Build the settings from overrides, ``ZT_*`` variables and a TOML file.

    The TOML file is ``config`` if given, else ``$ZT_CONFIG`` if set (either must exist), else
    :func:`default_config_path` when that file exists. Raises ``ConfigError`` with a message
    naming each bad setting, or the file that cannot be read.
    """
    global _toml_path
    toml = config_path(config)
    _toml_path = toml
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        where = f" (config file {toml})" if toml is not None else ""
        raise ConfigError(_describe(exc) + where) from None
    except ValueError as exc:  # TOML syntax errors surface as ValueError subclasses
        raise ConfigError(f"invalid config file {toml}: {exc}") from None
    except OSError as exc:  # unreadable: a folder, no permission
        raise ConfigError(f"cannot read config file {toml}: {exc.strerror or exc}") from None
    finally:
        _toml_path = None


def config_path(config: Path | str | None = None) -> Path | None:
    """The TOML file :func:`load_settings` reads (None: no file). Raises ``ConfigError`` when
    the file named by ``config`` or ``ZT_CONFIG`` does not exist."""
    path = config if config is not None else os.environ.get(ENV_PREFIX + "CONFIG")
    if path:
        toml = Path(path).expanduser()
        if not toml.is_file():
            raise ConfigError(f"config file not found: {toml}")
        return toml
    default = default_config_path()
    return default if default.exists() else None


def unknown_environment() -> list[str]:
    """``ZT_*`` variables that are no setting (typos are otherwise silently ignored)."""
    known = {ENV_PREFIX + name.upper() for name in Settings.model_fields} | {ENV_PREFIX + "CONFIG"}
    return sorted(
        name
        for name in os.environ
        if name.upper().startswith(ENV_PREFIX) and name.upper() not in known
    )


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        if len(loc) > 1 and loc[0] == "hosts":  # ZT_HOSTS[0].llm_base_url: the host's own key
            name = f"{ENV_PREFIX}HOSTS[{loc[1]}]" + "".join(f".{p}" for p in loc[2:])
        else:
            name = ENV_PREFIX + (".".join(loc) or "?").upper()
        parts.append(f"{name}: {err['msg']}")
    return "invalid settings: " + "; ".join(parts)


def _display_default(name: str, value: Any) -> str:
    if name == "data_dir":
        return "~/.local/share/zotero-translate"
    if name == "vllm_command":
        return "(32 GB profile, below)"
    if name == "hosts":
        return "(none)"
    if isinstance(value, StrEnum):
        return value.value

    return "(unset)" if value is None or value == "" else str(value)


def settings_markdown() -> str:
    """The settings table rows of docs/settings.md (``make docs``;
    tests/zotero_server/test_docs.py)."""
    return "\n".join(
        f"| `{ENV_PREFIX}{name.upper()}` | `{_display_default(name, field.default)}` |"
        f" {field.description or ''} |"
        for name, field in Settings.model_fields.items()
    )


def settings_help() -> str:
    """One line per setting: variable, default, description (for ``--help``)."""
    return "\n".join(
        f"  {ENV_PREFIX}{name.upper():<24} {_display_default(name, field.default):<28}"
        f" {field.description or ''}"
        for name, field in Settings.model_fields.items()
    )

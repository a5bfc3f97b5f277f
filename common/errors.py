"""The project's exception tree.

Third-party errors are wrapped at the boundary where they happen; everything above sees only
these. ``zotero_server`` maps them to HTTP in one place, the CLI maps them to exit codes.
Messages are short, human and shown to users as they are.
"""

from __future__ import annotations


class ZTError(Exception):
    """Base of every error this project raises on purpose."""

    #: Stable machine-readable name (the HTTP payload's ``errorType``).
    error_type = "Error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConfigError(ZTError):
    """A setting is missing or invalid."""

    error_type = "ConfigError"


# --- bad input (HTTP 400/413, CLI exit 2) ---------------------------------------------------


class InputError(ZTError):
    """The user's input cannot be processed as given."""

    error_type = "InputError"


class NotAPDFError(InputError):
    error_type = "NotAPDF"


class EmptyPDFError(InputError):
    error_type = "EmptyPDF"


class PasswordRequiredError(InputError):
    error_type = "PasswordRequired"


class NoTextLayerError(InputError):
    error_type = "NoTextLayer"


class TooLargeError(InputError):
    error_type = "TooLarge"


class UnsupportedLanguageError(InputError):
    error_type = "UnsupportedLanguage"


class PDFTooComplexError(InputError):
    """The PDF is over one of the ``ZT_PDF_MAX_*`` limits (pages, spans or text)."""

    error_type = "PDFTooComplex"


class PDFProcessingError(InputError):
    """The PDF worker process ran out of its memory or time (``ZT_PDF_WORKER_MEMORY_MB``,
    ``ZT_PDF_TIMEOUT_S``) or died on this PDF."""

    error_type = "PDFProcessingFailed"


class NothingToTranslateError(InputError):
    """The pages asked for hold no paragraph to translate."""

    error_type = "NothingToTranslate"


class RequestShapeError(InputError):
    """The request body is not the flat JSON object the plugin sends."""

    error_type = "BadRequestBody"


# --- storage (HTTP 507) --------------------------------------------------------------------


class DiskFullError(ZTError):
    """A write in ZT_DATA_DIR (an upload, an output, the cache, the job store) failed for lack
    of space (HTTP 507). What was written before stays; nothing is left half-written."""

    error_type = "DiskFull"


# --- the LLM (HTTP 502) ---------------------------------------------------------------------


class LLMError(ZTError):
    """The LLM server failed in a way retries did not fix."""

    error_type = "LLMError"


class LLMUnavailableError(LLMError):
    """The LLM server cannot be reached (connection refused, DNS, timeout)."""

    error_type = "LLMUnavailable"


# --- the GPU and vLLM lifecycle (HTTP 503) --------------------------------------------------


class GPUUnavailableError(ZTError):
    """The translation model cannot be brought up now; retrying later may work."""

    error_type = "GPUUnavailable"

    def __init__(self, message: str, retry_after_s: float = 60.0) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class GPUBusyError(GPUUnavailableError):
    error_type = "GPUBusy"


class GPUStatusUnknownError(GPUUnavailableError):
    error_type = "GPUStatusUnknown"


class VLLMStartError(GPUUnavailableError):
    """A vLLM we launched exited or never became healthy."""

    error_type = "VLLMStartFailed"


class JupyterError(ZTError):
    """The JupyterLab terminal API refused or failed."""

    error_type = "JupyterError"


class GPUReadError(ZTError):
    """nvidia-smi could not be run or its output could not be read."""

    error_type = "GPUReadError"

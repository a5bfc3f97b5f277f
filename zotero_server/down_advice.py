"""DownAdvice: what to do when no model answers and this server will not start one.

The page's warning and ``zotero-translate status`` say the same thing: the URL tried, and the
real fixes (start vLLM yourself there, or point ``ZT_LLM_BASE_URL`` at a running one; or let the
server manage vLLM, and what that needs on this machine). A manager that launches needs no
advice: the next paper starts vLLM. Pure: built from the URL and the manager choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from common.redact import mask_secrets
from common.settings import ManagerKind
from vllm_manager.choice import ManagerChoice


@dataclass(frozen=True)
class DownAdvice:
    """The warning: ``title`` (names the URL) and ``fixes`` (whole sentences, best first)."""

    url: str
    title: str
    fixes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "title": self.title, "fixes": list(self.fixes)}

    def text(self, indent: str = "") -> str:
        """Plain text for a terminal: the title, then one numbered line per fix."""
        lines = [self.title] + [f"{n}. {fix}" for n, fix in enumerate(self.fixes, 1)]
        return "\n".join(indent + line for line in lines)


def down_advice(url: str, choice: ManagerChoice, *, launches: bool) -> DownAdvice | None:
    """The advice for a vLLM that does not answer at ``url``; None when ``launches`` (the
    manager starts vLLM itself when a paper needs it)."""
    if launches:
        return None
    shown = mask_secrets(url)
    yourself = (
        f"Start vLLM yourself so that it answers at {shown} (deploy/vllm/ has a launch"
        " profile per GPU size), or set ZT_LLM_BASE_URL to the address of a vLLM that runs."
    )
    needs = (
        "an NVIDIA GPU on this machine that nvidia-smi lists, the vLLM executable that"
        " ZT_VLLM_COMMAND runs, and the model it serves; for a GPU behind JupyterLab, set"
        " ZT_JUPYTER_URL instead"
    )
    if choice.auto and choice.kind is ManagerKind.NONE:
        managed = (
            f"Or let this server start vLLM when a paper needs it: that needs {needs}."
            f" Here: {choice.reason}."
        )
    else:
        managed = (
            "Or let this server start vLLM when a paper needs it: set ZT_MANAGER=auto (or"
            f" local); that needs {needs}."
        )
    return DownAdvice(shown, f"No translation model answers at {shown}.", (yourself, managed))

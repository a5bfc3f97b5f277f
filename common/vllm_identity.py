"""Which vLLM is ours: the command-line keywords that mark a vLLM, and the port ours serves on.

A process matching a keyword is a vLLM; whether it is *ours* (one to wait for) also depends on
its port. A vLLM whose command line names another ``--port`` than our launch command serves
someone else (a second model, a colleague's): waiting for it to answer at our URL would wait
for ever, so it counts as another tenant of the GPU.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PORT = re.compile(r"(?:^|\s)--port(?:=|\s+)['\"]?(\d{1,5})\b")
_MAX_NUM_SEQS = re.compile(r"(?:^|\s)--max-num-seqs(?:=|\s+)['\"]?(\d{1,6})\b")


def command_port(command: str) -> int | None:
    """The ``--port`` a command line names (the last one wins, as argparse takes it)."""
    found = _PORT.findall(command)
    return int(found[-1]) if found else None


def command_batch(command: str) -> int | None:
    """The batch size (``--max-num-seqs``) a command line names, the last one winning; None
    when it names none (vLLM's own default then depends on its version and the card)."""
    found = _MAX_NUM_SEQS.findall(command)
    size = int(found[-1]) if found else 0
    return size or None


class VLLMKeywords(list[str]):
    """The keywords that mark a vLLM's command line, and ``port``: the one our launch command
    names (None: no port rule, every keyword match is ours)."""

    def __init__(self, words: Iterable[str], port: int | None = None) -> None:
        super().__init__(words)
        self.port = port

    def serves_elsewhere(self, command: str) -> bool:
        """Whether ``command`` names a port other than ours."""
        if self.port is None:
            return False
        theirs = command_port(command)
        return theirs is not None and theirs != self.port

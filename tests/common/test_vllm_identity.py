"""What a vLLM command line tells about the vLLM it starts: its port and its batch size."""

from __future__ import annotations

import pytest

from common.settings import DEFAULT_VLLM_COMMAND
from common.vllm_identity import VLLMKeywords, command_batch, command_port


@pytest.mark.parametrize(
    ("command", "batch"),
    [
        ("vllm serve m --max-num-seqs 48", 48),
        ("vllm serve m --max-num-seqs=16 --port 8001", 16),
        ("vllm serve m --max-num-seqs '24'", 24),
        ("vllm serve m --max-num-seqs 8 --max-num-seqs 12", 12),  # argparse: the last wins
        ("vllm serve m --max-num-seqs 0", None),
        ("vllm serve m --max-num-batched-tokens 4096", None),
        ("deploy/vllm/32gb.sh", None),  # a launch profile: its --settings tell the maximum
    ],
)
def test_the_batch_size_a_command_names(command: str, batch: int | None) -> None:
    assert command_batch(command) == batch


def test_the_default_command_names_its_batch_and_port() -> None:
    assert command_batch(DEFAULT_VLLM_COMMAND) == 32
    assert command_port(DEFAULT_VLLM_COMMAND) == 8000


def test_a_vllm_on_another_port_than_ours_serves_someone_else() -> None:
    keywords = VLLMKeywords(["vllm"], port=8000)
    assert keywords.serves_elsewhere("vllm serve other --port 8001")
    assert not keywords.serves_elsewhere("vllm serve ours --port 8000")

"""Faithful stand-ins for what needs a GPU (vLLM, nvidia-smi), speaking the real protocols."""

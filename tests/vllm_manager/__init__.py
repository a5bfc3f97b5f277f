"""Tests of `vllm_manager/`."""

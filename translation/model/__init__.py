"""Talking to the model: the LLM client, prompts, cache, concurrency limiter and fair slots,
glossary and counters. Speaks OpenAI-compatible HTTP; knows nothing about GPUs or PDFs.
"""

"""Talking to the model: the LLM client, prompts, cache, concurrency limiter and fair slots,
glossary and counters.

Speaks OpenAI-compatible HTTP and reads vLLM's ``/metrics`` to pace its requests; makes no GPU
decisions (whether a server runs is ``ensure_ready``'s business, outside this package). Works on
paragraph texts: it never opens a PDF, and from ``read/`` it takes only the paragraph type and
the placeholder pattern (the glossary protects terms the way formulas are protected).
"""

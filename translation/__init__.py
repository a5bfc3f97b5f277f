"""PDF in, paragraphs, LLM, PDF out. Knows nothing about HTTP or GPUs."""

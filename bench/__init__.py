"""Benchmarks (`make bench`): printed tables, never timed tests."""

import translation  # noqa: F401  (before PyMuPDF: see translation/__init__.py)

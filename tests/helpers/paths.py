"""Where things are, for tests wherever their module sits in ``tests/``."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (the folder holding ``pyproject.toml``).
REPO_ROOT = Path(__file__).resolve().parents[2]
#: The test suite's own folder.
TESTS = REPO_ROOT / "tests"

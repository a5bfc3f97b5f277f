"""Where the project's non-Python files are, in a checkout and in an installed wheel."""

from __future__ import annotations

import sys
from pathlib import Path

_CHECKOUT_STATIC = Path(__file__).resolve().parent.parent / "static"
# pyproject.toml installs static/ here as data files when the project is built as a wheel.
_INSTALLED_STATIC = Path(sys.prefix) / "share" / "zotero-translate" / "static"


def static_dir() -> Path:
    """The pages and scripts folder: the checkout's ``static/``, else the installed copy."""
    if _CHECKOUT_STATIC.is_dir():
        return _CHECKOUT_STATIC
    return _INSTALLED_STATIC

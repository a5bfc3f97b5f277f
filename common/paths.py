"""Where the project's non-Python files are, in a checkout and in an installed wheel."""

from __future__ import annotations

import os
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


def default_config_path() -> Path:
    """The config file read when neither ``--config`` nor ``ZT_CONFIG`` names one (XDG)."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg else Path.home() / ".config"
    return base / "zotero-translate" / "config.toml"

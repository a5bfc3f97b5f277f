"""The HTTP face the Zotero plugin talks to, and the command line."""

__version__ = "0.1.0"

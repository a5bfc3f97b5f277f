"""Tests of `zotero_server/`."""

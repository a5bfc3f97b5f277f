"""Tests of `translation/read/style/`."""

"""Tests of `translation/read/rows/`."""

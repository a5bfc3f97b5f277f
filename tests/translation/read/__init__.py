"""Tests of `translation/read/`."""

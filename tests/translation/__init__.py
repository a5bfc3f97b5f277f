"""Tests of `translation/`."""

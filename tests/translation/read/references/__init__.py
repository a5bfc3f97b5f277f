"""Tests of `translation/read/references/`."""

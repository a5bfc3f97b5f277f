"""Tests of `translation/read/regions/`."""

"""Tests of `translation/read/tables/`."""

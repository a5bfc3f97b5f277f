"""Tests of `common/`."""

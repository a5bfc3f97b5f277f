"""Tests of `translation/read/math/`."""

"""Tests of `translation/model/`."""

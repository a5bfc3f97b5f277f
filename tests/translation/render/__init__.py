"""Tests of `translation/render/`."""

"""Tests of `translation/read/ocr/`."""

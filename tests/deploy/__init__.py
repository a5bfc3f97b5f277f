"""Tests of `deploy/`."""

"""Tests of `bench/`."""

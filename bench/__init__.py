"""Benchmarks (`make bench`): printed tables, never timed tests."""

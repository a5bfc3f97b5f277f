"""Test helpers shared by several test modules (no fixtures of our own code's doubles)."""

"""Shared foundations: settings, the exception tree, progress vocabulary."""

"""Rows: a page's visual lines (spans joined, scripts and drop caps attached), their
reading order, and the rows that are not read (running heads and feet, figure text)."""

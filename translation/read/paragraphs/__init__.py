"""Paragraphs: a classified block made the :class:`~translation.read.paragraph.Paragraph` the
model reads and the renderer sets: its box, alignment, line pitch, indent, label look and
style."""

"""Blocks by kind: which rows make one block, its label and kind (heading, list item,
footnote, caption, cell, author, ...), whether it is sent, and which blocks are the
references section."""

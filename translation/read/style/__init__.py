"""Style: bold, italic and colour of a paragraph's runs, and the marks that carry them in
the text."""

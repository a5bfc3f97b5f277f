"""Page layout: a PDF page read into plain data (spans, glyph advances, rules, images,
annotations set apart), within the limits a page may take. The only stage that touches
PyMuPDF; ``translation.read.ocr`` reads a scanned page into the same data."""

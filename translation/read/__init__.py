"""Reading a paper: what the PDF holds, in reading order, cut into the units the model reads.

Layout, rows, reading order, tables, roles, references, paragraphs, style, formulas and OCR.
Pure rules over plain data where possible; PyMuPDF is met only where a page is read.
"""

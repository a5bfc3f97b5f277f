"""Reading a paper: what the PDF holds, in reading order, cut into the units the model reads.

Opening and validating a document, page layouts, rows, reading order, tables, roles,
references, paragraphs, style, formulas and OCR. Pure rules over plain data where possible;
PyMuPDF is met only where a document is opened or a page is read. Knows nothing of the model
or of rendering.
"""

"""Reading a paper: what the PDF holds, in reading order, cut into the units the model reads.

The reading runs as ordered stages (``pipeline``): page layout (``pages``, ``ocr``) -> page
regions (``regions``) -> tables -> rows -> blocks by kind (``blocks``, with ``references``) ->
paragraphs -> flow -> requests, each stage a subpackage that imports only the stages before
it and the shared concepts (``layout``, ``paragraph``, ``math``, ``words``, ``style``,
``numbering``). Pure rules over plain data where possible;
PyMuPDF is met only where a document is opened or a page is read. Knows nothing of the model
or of rendering.
"""

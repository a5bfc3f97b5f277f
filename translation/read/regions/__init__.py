"""Page regions, decided before any line is read as text: the document's measures (body size,
leading, reading directions, monospaced faces), each page's body column (``body_frame``), its
line numbers (``line_numbers``), margin labels, side notes and margin columns (``margins``),
and the running heads, footers and page numbers told across pages (``furniture``), gathered
by ``page_regions``. Floats and sideways content are not regions yet."""

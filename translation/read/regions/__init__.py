"""Page regions: the document's measures (body size, leading, reading directions) and,
in time, each page's body columns, margins, running heads and floats, decided before any
line is read as text."""

"""Tables: grids of cells told from the rows' gaps, rules and number columns, each cell's
lines read together and the room its translation may take."""

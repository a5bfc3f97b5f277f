"""Math and notation: the character classes of math, placeholders for inline formulas,
and the cells and lines that are only notation, quantities or operator names."""

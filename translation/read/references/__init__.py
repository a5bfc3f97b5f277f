"""References: what a bibliography looks like (its heading, its entries, a numbered one
without a heading), on plain pieces of text."""

"""Flow: which paragraphs go on in a later box (a column, a page, a float, an equation),
and the passages they make: one request each."""

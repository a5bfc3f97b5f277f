"""Words: word and sentence patterns, the lexicon and the document's vocabulary for line-end
hyphens, stretched word spaces and typeset logos."""

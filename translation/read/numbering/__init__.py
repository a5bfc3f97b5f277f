"""Numbering: the grammar of section, list, entry and page numbers (``grammar``) and the
labels that number a caption ("Figure 2.", "Table 1:", "표 1": ``captions``)."""

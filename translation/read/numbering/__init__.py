"""Numbering: the labels that number a caption ("Figure 2.", "Table 1:", "표 1")."""

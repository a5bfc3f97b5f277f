"""Setting the answer: typesetting, fitting, fonts, glyph-exact redaction, links.

Writes translated text into a page where its source was; knows nothing about the model.
"""

"""Setting the answer: typesetting, fitting, the page check, fonts, formula copies, redaction.

Writes translated text into a page where its source was; knows nothing about the model. From
``read/`` it uses only plain data and its conventions: layouts, paragraphs, the formula marks
and style codes a paragraph's text carries.
"""

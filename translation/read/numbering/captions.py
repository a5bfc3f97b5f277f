"""Caption labels: the "Figure 2.", "Table 1:" or "표 1" that begins a caption."""

from __future__ import annotations

import re

from translation.read.numbering.grammar import ROMAN

#: The words that label a table's caption and a figure's, in Latin and in CJK script (a Korean
#: label may stand in brackets: "[표 1]", "<그림 2>").
#: The Latin words cover the languages papers are written in beside English: French
#: ("Tableau"), German ("Tabelle", "Abbildung", "Abb."), Spanish, Portuguese and Italian
#: ("Tabla", "Tabela", "Tabella", "Cuadro", "Quadro", "Figura").
TABLE_LATIN = r"Table|Tableau|Tabelle|Tabla|Tabela|Tabella|Cuadro|Quadro|Tab\."
TABLE_CJK = r"表|표|\[표|<표|〈표"
FIGURE_LATIN = r"Figure|Figura|Abbildung|Abb\.|Fig\."
FIGURE_CJK = r"图|圖|図|그림|\[그림|<그림|〈그림"

#: A Latin label's number: "2", "A1", "3.1"; or in Roman numerals (IEEE's "TABLE III",
#: Emerald's "Table I."), which need a space or a stop after them (not a word's start).
_LATIN_NUMBER = rf"(?:[A-Z]?\d+(?:\.\d+)?|{ROMAN}(?=[\s:.：。]|$))"

_CAPTION_RE = re.compile(
    rf"^\s*(?:(?:{FIGURE_LATIN}|{TABLE_LATIN}|Algorithm|Listing|Scheme|Chart|Exhibit)\s*"
    # A dash after the number parts label and title as a stop does ("FIG. 1 – Les ...").
    rf"{_LATIN_NUMBER}(?P<end>\s*[:.：。]|\s*[–—]|\s+-\s|\s*$|\s)|"
    # A CJK label needs no stop: prose glues a particle to the number ("表1に", "표 1은").
    rf"(?:{FIGURE_CJK}|{TABLE_CJK})\s*[\d０-９]+(?:[.-][\d０-９]+)?"
    r"(?P<cjk>\s*[:.：。．\]>〉]|\s))",
    re.IGNORECASE,
)


def caption_label(text: str, bold_lead: int) -> bool:
    """Whether ``text`` begins with a caption's label: followed by a stop ("Table 1:",
    "Figure 2.", "Table I."), alone on its line (IEEE's "TABLE III" over its title), a CJK
    label ("表 1", "그림 2"), or a label set in bold (``bold_lead``: how many characters the
    text's bold start holds); a label parted from its title by a dash ("Fig. 1 – ...") too; a
    sentence "Fig. 2 shows ..." is prose."""
    match = _CAPTION_RE.match(text)
    if not match:
        return False
    if match.group("cjk") or (match.group("end") or "").strip() or match.end() == len(text):
        return True
    return bold_lead >= len(match.group(0).strip())

"""The grammar of section and list numbering: the pieces a rule's pattern is built from.

A section is numbered "3", "3.2.1", "B.1", "II."; a list item "1.", "(a)", "iv)", "①"; a
bibliography's entry "[12]" or "12.". Each piece is a regular expression fragment (no groups,
no anchors), so every rule that reads a number reads it alike and says only what comes around
it (a stop, a bracket, the title's first letter).
"""

from __future__ import annotations

#: A section level's or a list item's number: one or two digits (more are a page, a year, a
#: quantity).
NUMBER = r"\d{1,2}"
#: One deeper level of a section number: the ".2" of "3.2".
LEVEL = rf"\.{NUMBER}"
#: A section number of up to four levels: "3", "3.2", "3.2.1.4".
SECTION = rf"{NUMBER}(?:{LEVEL}){{0,3}}"
#: The levels under a lettered or numbered top level, one to three: the ".1" of "B.1".
SUBSECTIONS = rf"(?:{LEVEL}){{1,3}}"
#: A section or an item in Roman capitals, I to XXXVIII ("II.", "IV.").
ROMAN = r"[IVX]{1,5}"
#: A section in Roman capitals up to L (a long report's "XL.").
ROMAN_SECTION = r"[IVXL]{1,5}"
#: An item in small Roman numerals, i to xxxviii ("iv)", "(ii)").
ROMAN_ITEM = r"[ivx]{1,5}"
#: Small Roman numerals in order, to tell the numeral before one ("ii" before "iii").
ROMAN_ITEMS = "i ii iii iv v vi vii viii ix x xi xii".split()
#: A lettered section or appendix ("B.1", "A.").
LETTER = r"[A-Z]"
#: A lettered item ("(a)", "b.").
LETTER_ITEM = r"[a-z]"
#: Circled numbers, ① to ⑳ and ㉑ to ㉟ (East Asian lists and footnotes).
CIRCLED = r"[\u2460-\u2473\u3251-\u325f]"
#: A number in CJK numerals, one to ninety-nine ("三", "十二", "二十一").
CJK_NUMERAL = r"[一二三四五六七八九十]{1,3}"
#: A CJK section number, the title straight after it: "第三节", "一、", "（二）" (or "(二)").
CJK_SECTION = rf"(?:第{CJK_NUMERAL}[章节節]|{CJK_NUMERAL}、|[（(]{CJK_NUMERAL}[)）])"
#: How a list's numbering begins, a bracket perhaps, then a digit, a letter or a Roman
#: numeral: "1." "(a)" "[3]" "iv)".
NUMBERING_START = r"[(\[]?[\divxIVXa-z]"
#: A page's number: up to four digits, or small Roman numerals (a front matter's "xiv").
PAGE_NUMBER = r"\d{1,4}|[ivxlcdm]{1,7}"
#: A bibliography entry's number: up to four digits ("[1234]").
ENTRY_NUMBER = r"\d{1,4}"

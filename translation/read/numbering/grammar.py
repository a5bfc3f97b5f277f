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
#: One Roman capital of a section's or an item's number.
ROMAN_DIGIT = r"[IVX]"
#: One small Roman numeral's letter of an item's number.
ROMAN_ITEM_DIGIT = r"[ivx]"
#: A section or an item in Roman capitals of up to five letters ("II.", "IV.", "XVIII.").
ROMAN = rf"{ROMAN_DIGIT}{{1,5}}"
#: A section in Roman capitals up to L (a long report's "XL.").
ROMAN_SECTION = r"[IVXL]{1,5}"
#: An item in small Roman numerals, i to xxxviii ("iv)", "(ii)").
ROMAN_ITEM = rf"{ROMAN_ITEM_DIGIT}{{1,5}}"
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
#: A page's number in digits: up to four ("1234"; a page count "/ 12" alike).
PAGE_DIGITS = r"\d{1,4}"
#: A page's number: up to four digits, or small Roman numerals (a front matter's "xiv").
PAGE_NUMBER = rf"{PAGE_DIGITS}|[ivxlcdm]{{1,7}}"
#: A bibliography entry's number: up to four digits ("[1234]").
ENTRY_NUMBER = r"\d{1,4}"
#: A list's, an algorithm line's or a led figure's number: up to three digits ("[120]",
#: "117:", "Table 12").
COUNT = r"\d{1,3}"
#: A number of any length, where the words around it bound it ("Algorithm 12", "3.10.2").
DIGITS = r"\d+"
#: One digit in ASCII only (a table's marker reads no fullwidth or Arabic-Indic digit).
ASCII_DIGIT = r"[0-9]"
#: The first section's number: "1" or "I" (where the body begins after the front matter).
FIRST_NUMBER = r"[1I]"
#: A heading's number read loosely: a run of digits and Roman capitals ("7", "VII", "7.").
LOOSE_NUMBER = rf"(?:\d|{ROMAN_DIGIT})+"
#: A Roman numeral of any length in capitals ("XIV." in a table's label column).
ROMAN_RUN = rf"{ROMAN_DIGIT}+"
#: A bracketed marker: up to twelve characters between square brackets ("[a]", "[S1.2]").
BRACKETED = r"\[[^\]]{1,12}\]"

# Bullets, as the bodies of a character class (a rule puts together the ones it reads).
#: Round and square bullets, the common marks of an unnumbered list.
BULLETS = "•◦▪‣"
#: Filled and hollow circles and squares.
BULLET_SHAPES = "●○■□"
#: Diamonds, arrows and ticks.
BULLET_SYMBOLS = "◆◇▶►✓✔"
#: A middle dot used as a bullet.
MIDDLE_DOT = "·"
#: The bullet operator, a bullet in a table's label column.
BULLET_OPERATOR = "∙"
#: Dashes used as bullets.
DASHES = "–—"
#: The reference mark of East Asian lists.
REFERENCE_MARK = "※"
#: The private-use area, where a symbol font's bullet lands.
PRIVATE_USE = "\ue000-\uf8ff"

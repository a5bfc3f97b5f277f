"""Removing what a PDF viewer would run, launch or unpack from a document we hand out.

Every output the server writes (mono, dual, cut and comparison files) passes through
:func:`strip_active_content` before it is saved. The rule is an allowlist: an action stays only
when it moves the reader inside the document (``GoTo``, the four page-turning ``Named``
actions) or opens a web link (``URI`` other than ``javascript:``, ``file:``, ``data:`` or
``vbscript:``). Every other action (JavaScript, Launch, ImportData, SubmitForm, ResetForm,
Rendition, GoToR, GoToE, Movie, Sound, ...) is removed wherever it sits:

* the catalog's ``/OpenAction`` and every ``/AA`` (document, page, annotation, form field):
  additional actions only fire on events (open, close, mouse-enter, keystroke), never on a click
  the reader meant, so they all go;
* the ``/A`` (and ``/PA``) of annotations, widgets, form fields and outline entries; a kept
  action loses its ``/Next`` chain, since a chained action is never needed to follow a link;
* the ``/JavaScript`` and ``/EmbeddedFiles`` name trees, XFA forms, embedded files (and file
  attachment annotations), the ``/EF`` of every file specification;
* action objects themselves, when something unforeseen still refers to them: they become empty
  dictionaries.

A last pass renames any forbidden name left inline in an object's text (a script action
nested in an array, say) to an inert one, so no shape the passes above do not know survives.
Works on a ``pymupdf.Document`` in place; garbage collection on save drops what is no longer
referenced.
"""

from __future__ import annotations

import re

import pymupdf

#: Actions that only move the reader or open a web page.
_SAFE_ACTIONS = frozenset({"GoTo", "URI", "Named"})
_SAFE_NAMED = frozenset({"NextPage", "PrevPage", "FirstPage", "LastPage"})
_UNSAFE_SCHEMES = ("javascript:", "file:", "data:", "vbscript:")
#: Every action type of ISO 32000-2 (12.6.4) and the RichMedia extension.
_ACTION_TYPES = frozenset(
    {
        "GoTo", "GoToR", "GoToE", "GoToDp", "Launch", "Thread", "URI", "Sound", "Movie", "Hide",
        "Named", "SubmitForm", "ResetForm", "ImportData", "JavaScript", "SetOCGState",
        "Rendition", "Trans", "GoTo3DView", "RichMediaExecute", "ECMAScript",
    }
)  # fmt: skip
#: Keys that hold actions to check (``/PA``: a link annotation's parent URI action).
_ACTION_KEYS = ("A", "PA", "OpenAction")
#: Annotations whose only purpose is to carry a file or a player.
_FILE_ANNOTS = frozenset({"FileAttachment", "RichMedia", "Movie", "Sound", "Screen"})
#: Names that must not appear anywhere in the output (the final pass renames them).
FORBIDDEN_NAMES = (
    "JavaScript", "JS", "Launch", "ImportData", "SubmitForm", "ResetForm", "Rendition",
    "GoToR", "GoToE", "GoToDp", "Movie", "Sound", "RichMediaExecute", "ECMAScript",
    "EmbeddedFile", "EmbeddedFiles", "EF", "RF", "AA", "XFA",
)  # fmt: skip
_DELIMITER = r"(?=[\s()<>\[\]{}/%]|$)"
_FORBIDDEN = re.compile(rf"/({'|'.join(FORBIDDEN_NAMES)}){_DELIMITER}")
_INERT = "/ZTRemoved"


def strip_active_content(doc: pymupdf.Document) -> None:
    """Remove from ``doc`` everything the module docstring lists; ordinary links
    (web ``URI``, ``GoTo`` inside the document), outlines, notes and form values stay."""
    if not doc.is_pdf:
        return
    for name in doc.embfile_names():
        doc.embfile_del(name)
    catalog = doc.pdf_catalog()
    drop_keys(doc, catalog, ("Names/JavaScript", "Names/EmbeddedFiles", "AcroForm/XFA"))
    for page in doc:
        for annot in page.annot_xrefs():  # (xref, type, id)
            if _name(doc, annot[0], "Subtype") in _FILE_ANNOTS:
                page.delete_annot(page.load_annot(annot[0]))
    for xref in range(1, doc.xref_length()):
        _strip_object(doc, xref)
    for xref in range(1, doc.xref_length()):
        _rename_forbidden(doc, xref)


def _strip_object(doc: pymupdf.Document, xref: int) -> None:
    try:
        keys = set(doc.xref_get_keys(xref))
    except Exception:  # a free or broken entry: nothing a viewer could run
        return
    if not keys:
        return
    kind = _name(doc, xref, "S")
    is_action = kind in _ACTION_TYPES or (
        "JS" in keys and _name(doc, xref, "Type") in ("", "Action")
    )
    if is_action and not _action_is_safe(doc, xref, ""):
        doc.update_object(xref, "<<>>")
        return
    drop = [key for key in ("AA", "EF", "RF", "JS") if key in keys]
    if kind in _ACTION_TYPES and "Next" in keys:
        drop.append("Next")
    for key in _ACTION_KEYS:
        if key not in keys or not _holds_action(doc, xref, key):
            continue
        if not _action_is_safe(doc, xref, key):
            drop.append(key)
        elif doc.xref_get_key(xref, f"{key}/Next")[0] != "null":
            drop.append(f"{key}/Next")
    if _name(doc, xref, "Type") == "EmbeddedFile" and doc.xref_is_stream(xref):
        doc.update_stream(xref, b"")
        drop.append("Type")
    drop_keys(doc, xref, drop)


def _holds_action(doc: pymupdf.Document, xref: int, key: str) -> bool:
    """Whether ``key`` of object ``xref`` may hold an action (or a destination) rather than
    something merely named like an action key: a Type 3 font's glyph "A" in its
    ``/CharProcs``, an image or a font a page's resources call ``/A``. Actions are never
    streams, and an action dictionary says what it does (``/S``; ``/JS``, ``/Next``,
    ``/Type /Action`` are counted too); anything else here no viewer can run."""
    kind, value = doc.xref_get_key(xref, key)
    if kind == "xref":
        target = int(value.split()[0])
        if doc.xref_is_stream(target):
            return False
    elif kind != "dict":
        return True  # a destination, a null, or a malformed value: judged as before
    for part in ("S", "JS", "Next"):
        if doc.xref_get_key(xref, f"{key}/{part}")[0] != "null":
            return True
    return _name(doc, xref, f"{key}/Type") == "Action"


def _action_is_safe(doc: pymupdf.Document, xref: int, key: str) -> bool:
    """Whether the action at ``key`` of object ``xref`` (``""``: the object itself) is one of
    the allowed kinds; a destination (array or name) in ``/OpenAction`` counts as ``GoTo``."""
    prefix = f"{key}/" if key else ""
    if key:
        kind, _ = doc.xref_get_key(xref, key)
        if kind in ("array", "name", "string"):  # a destination, no action
            return True
        if kind not in ("dict", "xref"):
            return bool(kind == "null")
    if doc.xref_get_key(xref, f"{prefix}JS")[0] != "null":
        return False
    action = _name(doc, xref, f"{prefix}S")
    if action not in _SAFE_ACTIONS:
        return False
    if action == "Named":
        return _name(doc, xref, f"{prefix}N") in _SAFE_NAMED
    if action == "URI":
        kind, uri = doc.xref_get_key(xref, f"{prefix}URI")
        scheme = re.sub(r"[\x00-\x20]", "", str(uri)).lower()
        return bool(kind == "string" and not scheme.startswith(_UNSAFE_SCHEMES))
    return True


def _name(doc: pymupdf.Document, xref: int, key: str) -> str:
    """The PDF name at ``key`` (a path such as ``A/S``) without its slash, or ``""``."""
    kind, value = doc.xref_get_key(xref, key)
    return value.lstrip("/") if kind == "name" else ""


def _rename_forbidden(doc: pymupdf.Document, xref: int) -> None:
    try:
        text = doc.xref_object(xref, compressed=True)
    except Exception:
        return
    if _FORBIDDEN.search(text) and text.lstrip().startswith(("<<", "[")):
        doc.update_object(xref, _FORBIDDEN.sub(_INERT, text))


def drop_keys(doc: pymupdf.Document, xref: int, keys: list[str] | tuple[str, ...]) -> None:
    """Remove ``keys`` (paths such as ``Names/JavaScript``) from object ``xref``: PyMuPDF can
    only set a key to ``null``, so the nulls are then cut out of the object's text."""
    present = [key for key in keys if doc.xref_get_key(xref, key)[0] != "null"]
    if not present:
        return
    for key in present:
        doc.xref_set_key(xref, key, "null")
    names = "|".join(sorted({re.escape(key.rsplit("/", 1)[-1]) for key in present}))
    text = re.sub(rf"/({names})\s*null\b", "", doc.xref_object(xref, compressed=True))
    doc.update_object(xref, text)

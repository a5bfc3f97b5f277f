"""The rooms of ``translation/`` import each other only along the data flow: pipeline and worker
use read, model and render; render uses read's plain data; read and model never use render;
nothing in translation/ imports the server or the GPU manager; no import circles; inside read/,
a stage never imports a later stage."""

from __future__ import annotations

from tests.helpers.imports import circles, import_graph

#: Imports across rooms that are allowed although the rule says otherwise, with why.
EXCEPTIONS = {
    # The glossary protects terms in paragraphs the way formulas are protected.
    ("translation.model.glossary", "translation.read.paragraph"),
    ("translation.model.glossary", "translation.read.math.formulas"),
}
#: What render may take from read: plain data and the conventions a paragraph's text carries.
RENDER_FROM_READ = {
    "translation.read.layout",
    "translation.read.paragraph",
    "translation.read.math.formulas",
    # A contents entry's leader kept out of its request by a placeholder.
    "translation.read.numbering.contents",
    "translation.read.style.paragraph_style",
    "translation.read.style.style_marks",
    # Where a page's annotations draw text of their own: areas a translation keeps clear of.
    "translation.read.pages.annotations",
    # The page's own space (/UserUnit): reading and writing must measure the page alike.
    "translation.read.pages.page_space",
}


def _imports() -> dict[str, set[str]]:
    """Each module of translation/ and what it imports of translation/ and of the server or the
    GPU manager (which it must never import)."""
    graph = import_graph("translation")
    outside = ("zotero_server", "vllm_manager")
    return {
        name: {m for m in deps if m in graph or m.startswith(outside)} - {name}
        for name, deps in graph.items()
    }


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ("read", "model", "render") else "top"


def test_rooms_import_along_the_data_flow() -> None:
    wrong = []
    for module, deps in _imports().items():
        for dep in deps:
            if dep.startswith(("zotero_server", "vllm_manager")):
                wrong.append((module, dep))
                continue
            if not dep.startswith("translation.") or (module, dep) in EXCEPTIONS:
                continue
            here, there = _room(module), _room(dep)
            if here == there or here == "top":
                continue
            if there == "top" or {here, there} == {"read", "model"}:
                wrong.append((module, dep))
            elif there == "render":  # read and model never use render
                wrong.append((module, dep))
            elif here == "render" and dep not in RENDER_FROM_READ:
                wrong.append((module, dep))
            elif here == "render" and there == "model":
                wrong.append((module, dep))
    assert sorted(wrong) == []


def test_no_import_circles() -> None:
    graph = {m: {d for d in deps if d.startswith("translation.")} for m, deps in _imports().items()}
    assert circles(graph) == []


def test_the_gpu_manager_never_imports_translation_or_the_server() -> None:
    """The manager gets its readiness probe as a callable; the server composes the two."""
    wrong = {
        (module, dep)
        for module, deps in import_graph("vllm_manager").items()
        for dep in deps
        if dep.startswith(("translation", "zotero_server"))
    }
    assert sorted(wrong) == []


#: translation/read/'s stages, in the order reading runs them (translation.read.pipeline): a
#: stage imports only the stages before it and the shared concepts, never a later stage.
READ_STAGES = (
    "pages",
    "ocr",
    "regions",
    "tables",
    "rows",
    "references",
    "blocks",
    "paragraphs",
    "flow",
)
#: Concepts every stage shares (plain data, measures of type, math, words, style, numbering):
#: they use no stage.
READ_SHARED = ("layout", "measures", "paragraph", "math", "words", "style", "numbering")
#: The modules that open a document and run the stages: they may use every stage.
READ_RUNNERS = (
    "pipeline",
    "segment",
    "segmentation",
    "extraction",
    "early",
    "document",
    "request_audit",
)


def _read_part(module: str) -> str:
    """The stage, shared concept or runner of a module of translation/read/ (its first name
    after ``translation.read``); "" for the package itself."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else ""


def test_every_read_module_has_a_place() -> None:
    """A new module of translation/read/ goes in a stage, a shared concept or a runner."""
    places = (*READ_STAGES, *READ_SHARED, *READ_RUNNERS, "")
    graph = import_graph("translation")
    lost = [m for m in graph if m.startswith("translation.read") and _read_part(m) not in places]
    assert lost == []


def test_a_read_stage_never_imports_a_later_stage() -> None:
    wrong = []
    for module, deps in _imports().items():
        if not module.startswith("translation.read."):
            continue
        here = _read_part(module)
        for dep in deps:
            there = _read_part(dep) if dep.startswith("translation.read.") else ""
            if not there or there == here or there in READ_SHARED:
                continue
            if here in READ_SHARED:  # a shared concept uses no stage and no runner
                wrong.append((module, dep))
            elif here in READ_STAGES and (
                there in READ_RUNNERS or READ_STAGES.index(there) > READ_STAGES.index(here)
            ):
                wrong.append((module, dep))
    assert sorted(wrong) == []

"""PDF in, requests to the model, PDF out.

``read/`` decides what the model reads, ``model/`` talks to it, ``render/`` sets the answer;
``pipeline`` orders the work and ``worker`` does the PDF part in its own process. The model is
any OpenAI-compatible server, reached only through ``model/`` (HTTP, and vLLM's ``/metrics`` to
pace the requests). Serves no HTTP of its own and makes no GPU decisions: the pipeline is given
an ``ensure_ready`` callable that brings the server up.
"""

import sys

# PyMuPDF 2 imports its layout analyser (an ONNX model run by onnxruntime) and pymupdf4llm
# whenever it is imported: about 270 MB of address space and half a second a process, counted
# against every PDF worker's memory limit (ZT_PDF_WORKER_MEMORY_MB), for ``Page.get_layout`` and
# ``to_markdown``, which nothing here calls. PyMuPDF goes on without them (it imports both
# inside ``try``); this must run before PyMuPDF is first imported.
for _unused in ("pymupdf.layout", "pymupdf4llm"):
    sys.modules.setdefault(_unused, None)  # type: ignore[arg-type]

import pymupdf  # noqa: E402  (after the lines above, on purpose)

# MuPDF prints its errors on stdout by PyMuPDF's default (pymupdf4llm switched that off
# as it loaded): the CLI's stdout is the paths of its outputs, and the engine says itself what
# went wrong with a paper. MuPDF's messages stay readable in ``pymupdf.TOOLS.mupdf_warnings()``.
pymupdf.TOOLS.mupdf_display_errors(False)

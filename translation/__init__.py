"""PDF in, requests to the model, PDF out.

``read/`` decides what the model reads, ``model/`` talks to it, ``render/`` sets the answer;
``pipeline`` orders the work and ``worker`` does the PDF part in its own process. The model is
any OpenAI-compatible server, reached only through ``model/`` (HTTP, and vLLM's ``/metrics`` to
pace the requests). Serves no HTTP of its own and makes no GPU decisions: the pipeline is given
an ``ensure_ready`` callable that brings the server up.
"""

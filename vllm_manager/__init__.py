"""The GPU's gatekeeper: GPU status, the start/wait/refuse decision, and vLLM's lifecycle."""

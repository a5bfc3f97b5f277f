# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python

.PHONY: run test lint bench visual docs format clean venv install-units

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Runtime install (re-done when pyproject.toml changes).
$(VENV)/.stamp-run: pyproject.toml | $(BIN)/activate
	$(PY) -m pip install --quiet -e .
	touch $@

# Runtime + test extras.
$(VENV)/.stamp-test: pyproject.toml | $(BIN)/activate
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.stamp-run

venv: $(VENV)/.stamp-run

run: $(VENV)/.stamp-run
	$(BIN)/zotero-translate serve

lint: $(VENV)/.stamp-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Three workers: most tests wait on servers, browsers and subprocesses, so even 2 cores finish
# sooner with a third (a quiet run here: 2 workers about 560 s, 3 workers 464 s; 3 passed under
# a corpus audit's load too). Four starved the tests that wait on timing (a limiter's signals,
# a browser's download). Browser tests share one worker (tests/conftest.py). PYTEST_WORKERS=0
# runs serially. The 15 slowest tests are listed at the end: the run must stay under 10 minutes
# on 2 cores.
PYTEST_WORKERS ?= 3

test: lint
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=15

bench: $(VENV)/.stamp-test
	$(PY) -m bench

# The generated parts of docs/api.md (routes) and docs/settings.md (settings); a test fails
# while they are stale.
docs: $(VENV)/.stamp-run
	$(PY) -m zotero_server.reference_docs
	$(PY) -m bench.corpus --docs

# Original and pseudo-translated pages side by side: open visual-output/index.html.
# Options through ARGS, e.g. make visual ARGS="--papers 01,04 --pages 1-3".
visual: $(VENV)/.stamp-test
	$(PY) -m bench.visual $(ARGS)

# systemd user units for `serve` and `gpu-api` (see docs/deploy.md).
install-units: $(VENV)/.stamp-run
	deploy/systemd/install.sh --venv $(abspath $(VENV))

format: $(VENV)/.stamp-test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache test-output bench-output visual-output

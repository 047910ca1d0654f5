# The two commands a new user runs: `make docs` builds the site, `make test` passes the tests.
# Both create .venv and install what they need (the pinned reference torch among it) when it is
# missing or out of date, and do nothing more when it is set up.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

SPHINX := $(BIN)/sphinx-build -W --keep-going -n -c . docs _build/html
PORT ?= 8000

.PHONY: setup docs serve test lint bench clean

setup: $(INSTALLED)

$(INSTALLED): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dev]"
	@touch $@

docs: $(INSTALLED)
	$(SPHINX)
	@echo
	@echo "The site is in _build/html: open _build/html/index.html, or run 'make serve'."

serve: docs
	@echo "Serving _build/html at http://127.0.0.1:$(PORT)/ (Ctrl-C stops)"
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory _build/html $(PORT)

test: $(INSTALLED)
	$(BIN)/ruff check --no-cache .
	$(BIN)/ruff format --no-cache --check .
	$(BIN)/python -m pytest

lint: $(INSTALLED)
	$(BIN)/ruff check .

bench: $(INSTALLED)
	$(BIN)/python benchmarks/cold_start.py
	$(BIN)/python benchmarks/hostile_inputs.py
	$(BIN)/python benchmarks/docs_build.py

clean:
	rm -rf _build docs/errors

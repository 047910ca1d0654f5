# The two commands a new user runs: `make docs` builds the site, `make test` passes the tests.
# Both create .venv and install what they need (the pinned reference torch among it) when it is
# missing or out of date, and do nothing more when it is set up.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: setup test lint bench clean

setup: $(INSTALLED)

$(INSTALLED): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dev]"
	@touch $@

test: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

lint: $(INSTALLED)
	$(BIN)/ruff check .

bench: $(INSTALLED)
	$(BIN)/python benchmarks/cold_start.py
	$(BIN)/python benchmarks/hostile_inputs.py

clean:
	rm -rf _build docs/errors

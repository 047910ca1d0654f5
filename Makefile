# The two commands a new user runs: `make docs` builds the site, `make test` passes the tests.
# Both create .venv and install what they need (the pinned reference torch among it) when it is
# missing or out of date, and do nothing more when it is set up.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

SPHINX := $(BIN)/sphinx-build -W --keep-going -n -c . docs _build/html
# The Chinese site: the same sources, translated by locales/zh_CN, at the same paths under zh_CN/.
# It reuses the gallery's outputs of the English build (their scripts are unchanged).
SPHINX_ZH := $(BIN)/sphinx-build -W --keep-going -n -c . -D language=zh_CN docs _build/html/zh_CN
PORT ?= 8000
# The workers `make test` runs the tests on (pytest-xdist): this machine has two cores.
TEST_WORKERS ?= 2

.PHONY: setup docs serve test lint bench matrix record browser clean mutate translations

setup: $(INSTALLED)

$(INSTALLED): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dev]"
	@touch $@

docs: $(INSTALLED)
	$(SPHINX)
	$(SPHINX_ZH)
	@echo
	@echo "The site is in _build/html: open _build/html/index.html (Chinese: _build/html/zh_CN/),"
	@echo "or run 'make serve'."

# After changing the prose of a page or a gallery script: regenerate the message catalogs
# (.pot in _build/gettext, then locales/zh_CN/LC_MESSAGES/**.po, keeping the translations and
# marking changed ones fuzzy). See "Translations" in docs/contributing.md.
translations: $(INSTALLED)
	$(BIN)/sphinx-build -q -b gettext -c . docs _build/gettext
	$(BIN)/sphinx-intl update -p _build/gettext -l zh_CN -d locales

serve: docs
	@echo "Serving _build/html at http://127.0.0.1:$(PORT)/ (Ctrl-C stops)"
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory _build/html $(PORT)

# The browser tests drive Debian's Chromium; install it when it is missing and we may, with a
# Chinese font (without one the zh_CN pages' screenshots show boxes; the tests read text).
BROWSER_PACKAGES := chromium chromium-driver fonts-wqy-microhei
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null \
		&& fc-list :lang=zh 2>/dev/null | grep -q .; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; \
	elif command -v sudo >/dev/null; then \
		sudo apt-get update -qq && sudo apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; \
	elif command -v chromium >/dev/null && command -v chromedriver >/dev/null; then \
		echo "make test: no Chinese font (fonts-wqy-microhei): zh_CN screenshots will show boxes" >&2; \
	else \
		echo "make test: the browser tests need chromium and chromium-driver;" \
		     "install them (apt-get install $(BROWSER_PACKAGES)) and run again" >&2; \
		exit 1; \
	fi

test: $(INSTALLED) browser
	$(BIN)/ruff check --no-cache .
	$(BIN)/ruff format --no-cache --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

lint: $(INSTALLED)
	$(BIN)/ruff check .

bench: docs
	$(BIN)/python benchmarks/cold_start.py
	$(BIN)/python benchmarks/hostile_inputs.py
	$(BIN)/python benchmarks/hook_cost.py
	$(BIN)/python benchmarks/docs_build.py
	$(BIN)/python benchmarks/search_rate.py

# Mutation testing of the matcher, catalog, releases and verdicts (not part of `make test`:
# it runs the fast tests once per mutant, about an hour here). Prints the surviving mutants.
mutate: $(INSTALLED)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[mutate]"
	$(BIN)/mutmut run --max-children 2 || true
	$(BIN)/mutmut results

# The reference release's recording (the torch constraints.txt pins, installed in .venv):
# after adding or changing an entry, regenerate data/observed/torch-<release>.json with it.
record: $(INSTALLED)
	$(BIN)/python -m autograd_errors record

# Not part of `make test`: several GB of torch builds. MATRIX_RELEASES="2.5.1 2.9.1" adds others.
MATRIX_RELEASES ?= 1.13.1 2.1.2 2.13.0 2.14.1
matrix: $(INSTALLED)
	$(BIN)/python tools/matrix.py $(MATRIX_RELEASES)

clean:
	rm -rf _build docs/errors

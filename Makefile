# `make run` starts the site; `make test` runs every check. Both install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# pip install -e . compiles gameshack.rules with mypyc (setup.py), so a changed rules file
# re-installs (so does a C part of the tile search): Python imports the compiled modules while
# they are there, and tests/compiled fails when they are older than their sources. The
# directories count too: a removed source changes its directory.
RULES_SRC := $(shell find src/gameshack/rules -name '*.py' -o -name '*.c')
RULES_SRC += $(shell find src/gameshack/rules -type d -not -name __pycache__)

.PHONY: run test lint typecheck pytest bench browser-deps clean

$(STAMP): pyproject.toml setup.py $(RULES_SRC)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -c "import gameshack.rules as r; print('gameshack.rules compiled:', r.COMPILED)"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/gameshack serve

browser-deps:
	sh scripts/ensure-chromium.sh

lint: $(STAMP)
	$(BIN)/ruff check setup.py src tests bench
	$(BIN)/ruff format --check setup.py src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP) browser-deps
	$(BIN)/python -m pytest

test: lint typecheck pytest

bench: $(STAMP)
	for f in bench/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache test-artifacts

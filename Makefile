# `make run` starts the site; `make test` runs every check. Both install what they need:
# `run` only what the site needs (SITE_STAMP), `test` the test tools on top (STAMP).
# `make run HOST=0.0.0.0 PORT=8080` lets other machines on the network in.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SITE_STAMP := $(VENV)/.installed-site
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# pip install -e . compiles gameshack.rules with mypyc (setup.py), so a changed rules file
# re-installs (so does a C part of the tile search): Python imports the compiled modules while
# they are there, and tests/compiled fails when they are older than their sources. The
# directories count too: a removed source changes its directory.
RULES_SRC := $(shell find src/gameshack/rules -name '*.py' -o -name '*.c')
RULES_SRC += $(shell find src/gameshack/rules -type d -not -name __pycache__)

.PHONY: run test lint typecheck pytest bench browser-deps clean

# The bytecode is compiled at install, not at the first start: an editable install leaves it to
# the first import, and PYTHONDONTWRITEBYTECODE (set in many containers) to every start: 13% of
# a start (bench/RESULTS.md). A source edited later is compiled again when next imported.
$(SITE_STAMP): pyproject.toml setup.py $(RULES_SRC)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -c "import gameshack.rules as r; print('gameshack.rules compiled:', r.COMPILED)"
	$(BIN)/python -m compileall -q src/gameshack
	touch $(SITE_STAMP)

# The test tools: the `dev` extra's requirements, without building the package a second time.
$(STAMP): $(SITE_STAMP) pyproject.toml
	$(BIN)/python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['dev']))" > $(VENV)/dev-requirements.txt
	$(BIN)/python -m pip install --quiet -r $(VENV)/dev-requirements.txt
	touch $(STAMP)

run: $(SITE_STAMP)
	$(BIN)/gameshack serve --host $(HOST) --port $(PORT)

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
	for f in bench/*.py; do echo "== $$f"; \
	  case $$f in bench/server_load.py) a=--table;; *) a=;; esac; \
	  $(BIN)/python $$f $$a || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache test-artifacts

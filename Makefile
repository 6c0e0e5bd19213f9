# Two set-up commands: `make demo` and `make test`. Both build .venv from pyproject.toml.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
AE := $(VENV)/bin/agent-evidence
STAMP := $(VENV)/.installed

.PHONY: demo test lint fmt unit fuzz bench claude-code-tree schemas docs lock clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	@$(PY) -m converter.devtools.demo

claude-code-tree: $(STAMP)
	@$(PY) -m converter.devtools.demo --proof

lint: $(STAMP)
	$(VENV)/bin/ruff format --check src tests
	$(VENV)/bin/ruff check src tests
	$(VENV)/bin/mypy
	bash scripts/lint-actions.sh

fmt: $(STAMP)
	$(VENV)/bin/ruff format src tests
	$(VENV)/bin/ruff check --fix src tests

unit: $(STAMP)
	$(PY) -m pytest

test: lint unit

fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest tests -m fuzz

bench: $(STAMP)
	$(PY) -m converter.devtools.bench

schemas: $(STAMP)
	$(PY) -m converter.devtools.schemas --write

docs: $(STAMP)
	$(PY) -m converter.errors > docs/refusals.md

# The Action's install (action.yml): every dependency and the build backend at one version,
# with the SHA-256 of each of its files on the package index, for every platform and Python 3.11
# on. Remake it after changing pyproject.toml's dependencies or requirements/action.in.
lock:
	$(PYTHON) -m venv .tools/lock
	.tools/lock/bin/python -m pip install --quiet --disable-pip-version-check 'uv==0.13.9'
	.tools/lock/bin/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
		--custom-compile-command 'make lock' -o requirements/action.txt \
		pyproject.toml requirements/action.in

clean:
	rm -rf $(VENV) build dist src/*.egg-info

# Two set-up commands: `make demo` and `make test`. Both build .venv from pyproject.toml.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
AE := $(VENV)/bin/agent-evidence
STAMP := $(VENV)/.installed

.PHONY: demo test lint fmt unit fuzz bench claude-code-tree schemas docs clean

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
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest tests -k "property or fuzz"

bench: $(STAMP)
	$(PY) -m converter.devtools.bench

schemas: $(STAMP)
	$(PY) -m converter.devtools.schemas --write

docs: $(STAMP)
	$(PY) -m converter.errors > docs/refusals.md

clean:
	rm -rf $(VENV) build dist src/*.egg-info

# Two commands for a fresh machine: `make demo` and `make test`.
# Each creates its own virtual environment (.venv) on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo typecheck test test-all bench clean

setup: $(STAMP)

# torch is pinned to the CPU build first: an unpinned torch pulls CUDA packages.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

demo: setup
	$(BIN)/pokerbot demo

# mypy over the packages, with the settings in pyproject.toml ([tool.mypy]).
typecheck: setup
	$(BIN)/mypy

test: setup typecheck
	$(BIN)/python -m pytest -q

test-all: setup
	$(BIN)/python -m pytest -q -m 'not interop and not browser and not gpu'

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info

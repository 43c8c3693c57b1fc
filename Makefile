# The two commands of the README: `make demo` and `make test`. Both create .venv with python3 when
# it is missing and install microanon with its development tools into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.microanon-installed
PYCANON_VERSION := 1.3.6

.PHONY: demo test lint install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# pycanon is only an independent checker for the tests; --no-deps keeps its exact pins out.
	$(BIN)/python -m pip install --quiet --no-deps pycanon==$(PYCANON_VERSION)
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/microanon demo

lint: $(STAMP)
	$(BIN)/ruff check src tests

test: lint
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) demo-output .pytest_cache .ruff_cache .hypothesis

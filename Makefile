# The two commands of the README: `make demo` and `make test`. Both create .venv with python3 when
# it is missing and install microanon with its development tools into it. `make docs` builds the
# documentation site (guide pages and API reference) into site/; `make test` builds it too.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.microanon-installed
PYCANON_VERSION := 1.3.6

.PHONY: demo test lint docs install clean wheel-check

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# pycanon is only an independent checker for the tests; --no-deps keeps its exact pins out
	# (numpy==2.0.2, pandas==2.3.3, ... would downgrade what microanon is tested on), so it is in
	# no extra of pyproject.toml. Under CI=true its tests fail without it (tests/oracles.py).
	$(BIN)/python -m pip install --quiet --no-deps pycanon==$(PYCANON_VERSION)
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/microanon demo

lint: $(STAMP)
	$(BIN)/ruff check src tests docs/_ext

# --strict: any warning (a broken link, a docstring that does not match its signature) fails.
# NO_MKDOCS_2_WARNING silences Material's end-of-life notice, a banner and not a build warning.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# -n auto: the test files are spread over every core (pytest-xdist); a file's tests stay together
# so that its module fixtures (Adult, a Dask cluster) are built once. --durations lists the
# slowest tests at the end: the suite must stay within its time on a 2-core machine.
test: lint docs
	$(BIN)/python -m pytest -q -n auto --dist loadfile --durations=25

# The wheel on its own, as a user gets it (not part of `make test`: it needs the package index and
# a few minutes): build dist/microanon-*.whl from a clean build/, install it with its dependencies
# into a new venv under build/, and run the demo, `microanon examples` and an example pipeline
# there, outside the repository.
WHEEL_CHECK := build/wheel-check

wheel-check:
	rm -rf build dist/microanon-*.whl
	$(PYTHON) -m pip wheel --no-deps --quiet -w dist .
	$(PYTHON) -m venv $(WHEEL_CHECK)/venv
	$(WHEEL_CHECK)/venv/bin/python -m pip install --quiet dist/microanon-*.whl
	cd $(WHEEL_CHECK) && venv/bin/microanon demo --out demo
	cd $(WHEEL_CHECK) && venv/bin/microanon examples --out examples
	cd $(WHEEL_CHECK) && venv/bin/microanon anonymize --config examples/adult/full_domain.yaml --out fd

clean:
	rm -rf $(VENV) demo-output site .pytest_cache .ruff_cache .hypothesis build

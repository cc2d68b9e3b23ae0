# Every target bootstraps .venv: created when missing, reinstalled when pyproject.toml
# is newer than the last install (stale) or the environment no longer imports ratkit.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.ratkit-installed

.PHONY: all demo test bench venv clean

all: test

# pip runs without --quiet so that its progress shows (a first install downloads about 60
# packages and takes a minute or two); the echo lines say what is being installed and why.
$(STAMP): pyproject.toml
	@test -x $(PY) || { echo "make: creating the virtual environment $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	@echo "make: installing ratkit (editable) with its test, plot and dask extras into $(VENV);" \
	  "a first install downloads its dependencies and takes a minute or two"
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --progress-bar on -e '.[test,plot,dask]'
	@touch $(STAMP)
	@echo "make: $(VENV) is ready; later runs reuse it until pyproject.toml changes"

venv: $(STAMP)
	@$(PY) -c 'import ratkit' 2>/dev/null || { rm -f $(STAMP); $(MAKE) --no-print-directory $(STAMP); }

demo: venv
	$(VENV)/bin/ratkit demo

test: venv
	$(PY) -m pytest -n auto

bench: venv
	$(PY) -m bench

clean:
	rm -rf $(VENV) build *.egg-info

# The documentation site (docs/, Sphinx): HTML in docs/_build/html, warnings are errors;
# then the examples of its pages run as doctests. Installs the `docs` extra into .venv.
DOCS_STAMP := $(VENV)/.ratkit-docs-installed

$(DOCS_STAMP): pyproject.toml $(STAMP)
	@echo "make: installing the docs extra (Sphinx and its extensions) into $(VENV)"
	$(PY) -m pip install --progress-bar on -e '.[docs]'
	@touch $(DOCS_STAMP)

.PHONY: docs
docs: venv $(DOCS_STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html
	$(VENV)/bin/sphinx-build -W --keep-going -b doctest docs docs/_build/doctest

# The checks of CONTRIBUTING.md: ruff's rules and its format on the whole repository (Python
# files; Markdown pages keep their own layout), mypy on the package (config in pyproject.toml),
# and the import contracts (layers, no private crossings; the custom contract type is in .ci/).
# Installs the `lint` extra into .venv.
LINT_STAMP := $(VENV)/.ratkit-lint-installed

$(LINT_STAMP): pyproject.toml $(STAMP)
	@echo "make: installing the lint extra (ruff, mypy, import-linter) into $(VENV)"
	$(PY) -m pip install --progress-bar on -e '.[lint]'
	@touch $(LINT_STAMP)

.PHONY: lint
lint: venv $(LINT_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	PYTHONPATH=.ci $(VENV)/bin/lint-imports

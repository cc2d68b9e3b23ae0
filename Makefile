# Every target bootstraps .venv: created when missing, reinstalled when pyproject.toml
# is newer than the last install (stale) or the environment no longer imports ratkit.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.ratkit-installed

.PHONY: all demo test bench venv clean

all: test

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,plot,dask]'
	@touch $(STAMP)

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
	$(PY) -m pip install --quiet -e '.[docs]'
	@touch $(DOCS_STAMP)

.PHONY: docs
docs: venv $(DOCS_STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html
	$(VENV)/bin/sphinx-build -W --keep-going -b doctest docs docs/_build/doctest

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

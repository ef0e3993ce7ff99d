# Two entry points, both safe on a fresh machine: `make demo` and `make test`; and the inner
# loop while you work, `make check` (ruff, mypy and the tests outside the slow, install,
# browser and cluster marks, in parallel: no JVM or browser needed).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo check test lint bench browser java clean

# The demo installs kpass as a user does (not editable: setuptools announces every editable
# install of this layout, and pip >= 25 prints that as a warning); `make test` installs it
# editable, so the tests and later demos see your edits.
$(VENV)/.core: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q .
	touch $@

$(VENV)/.check: setup.cfg pyproject.toml $(VENV)/.core
	$(PY) -m pip install -q -e ".[test]"
	touch $@

$(VENV)/.test: setup.cfg pyproject.toml $(VENV)/.check
	$(PY) -m pip install -q -e ".[test,test-full]"
	touch $@

# Headless Chromium for the Space browser tests (Debian's package; needs root or sudo).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$(command -v sudo >/dev/null 2>&1 && [ "$$(id -u)" != 0 ] && echo sudo); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; }

# A JVM for the Spark tests (Debian's OpenJDK 17, which PySpark 3.5 and 4 run on; needs
# root or sudo). Slim images lack the man directory its package links into.
java:
	@command -v java >/dev/null 2>&1 || { \
	  SUDO=$$(command -v sudo >/dev/null 2>&1 && [ "$$(id -u)" != 0 ] && echo sudo); \
	  $$SUDO mkdir -p /usr/share/man/man1 && $$SUDO apt-get update -qq && \
	  $$SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }

demo: $(VENV)/.core
	$(VENV)/bin/kpass report

# The inner loop: minutes, not the whole suite (tests/conftest.py fails an unmarked test that
# takes over its CPU limit, so the marks stay honest; KPASS_TEST_EXAMPLES=0.3 draws 30% of
# each property test's examples, which `make test` draws all).
check: $(VENV)/.check
	$(PY) -m ruff check .
	$(PY) -m mypy
	KPASS_TEST_EXAMPLES=0.3 $(PY) -m pytest -n auto -m "not slow and not install and not browser and not cluster"

test: $(VENV)/.test browser java
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest
	$(MAKE) docs

lint: $(VENV)/.check
	$(PY) -m ruff check .
	$(PY) -m mypy

# The docs site: docs/ and the API reference generated from the docstrings, in build/docs
# (open build/docs/README.html); any warning fails the build.
$(VENV)/.docs: setup.cfg pyproject.toml $(VENV)/.core
	$(PY) -m pip install -q -e ".[docs]"
	touch $@

docs: $(VENV)/.docs
	$(PY) -m sphinx -W --keep-going -q -b html docs build/docs
.PHONY: docs

bench: $(VENV)/.test
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) dist build *.egg-info

# spaces/ is a folder of scripts, not a package (`spaces` is Hugging Face's ZeroGPU package).
spaces: $(VENV)/.check
	$(PY) spaces/build.py

publish-spaces: $(VENV)/.check
	$(PY) spaces/publish.py --org $(ORG) $(if $(DRY_RUN),--dry-run)
.PHONY: spaces publish-spaces

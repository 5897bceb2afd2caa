# Two commands: `make run` and `make test`. Both create .venv and install what they need.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run cluster test browser lint typecheck pytest pytest-pure core bench clean pyodide dist docs

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# PyTorch's CPU build (a local wheel here, about 200 MB) before the rl extra: a bare
	# `torch` requirement would otherwise fetch a CUDA build of several GB.
	$(PY) -m pip install --quiet torch==2.13.0
	SEEP_PURE=1 $(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The core compiled by mypyc, in place next to its sources (setup.py; src/seep/*.so, ignored by
# git). Rebuilt whenever a core source changes, so a compiled module never shadows a newer
# .py; a failed build leaves the pure-Python core (seep --version says which one runs).
# The list of compiled modules lives in setup.py alone (COMPILED_MODULES); read it from there.
CORE_MODULES := $(shell $(PYTHON) -c 'import ast; t = ast.parse(open("setup.py").read()); \
	print(*next(ast.literal_eval(n.value) for n in t.body if isinstance(n, ast.Assign) \
	and getattr(n.targets[0], "id", "") == "COMPILED_MODULES"))')
CORE_SOURCES := $(foreach m,$(CORE_MODULES),src/seep/$(m).py)
COMPILED := src/seep/.compiled

$(COMPILED): $(STAMP) $(CORE_SOURCES) setup.py
	find src/seep -name '*.so' -delete
	$(PY) setup.py --quiet build_ext --inplace > build-core.log 2>&1 || true
	@$(PY) -c 'import seep; print("seep core: compiled (mypyc)" if seep.COMPILED else \
		"warning: seep core: the compiler failed, running the pure-Python core (see build-core.log)")'
	touch $(COMPILED)

core: $(COMPILED)

# The core tests once more on the pure-Python source (a copy of src without the compiled
# modules), so both builds are held to the same behaviour: every test under the folders below (a
# new test there joins by where it lives) but those marked default_build_only, and the doctests
# of the compiled modules.
PURE_TESTS := tests/core tests/bots tests/integrations

pytest-pure: $(STAMP)
	rm -rf .pure && mkdir -p .pure && cp -r src/seep .pure/seep && find .pure/seep -name '*.so' -delete
	SEEP_PURE=1 PYTHONPATH=.pure $(VENV)/bin/pytest -o addopts="-q -p no:cacheprovider" \
		-m "not default_build_only" $(PURE_TESTS) \
		--doctest-modules $(foreach m,$(CORE_MODULES),.pure/seep/$(m).py)

# Pyodide (the offline table's Python in the browser, docs/web.md "Offline play"): the npm
# package at a pinned version, fetched once into an ignored cache; only the runtime files the
# server serves under /pyodide/ are copied next to the web package (ignored by git too).
PYODIDE_VERSION := 314.0.8
PYODIDE_CACHE   := .cache/pyodide
PYODIDE_DIR     := src/seep/web/pyodide
PYODIDE_FILES   := pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip pyodide-lock.json package.json
PYODIDE_STAMP   := $(PYODIDE_DIR)/.v$(PYODIDE_VERSION)

$(PYODIDE_STAMP):
	@command -v npm > /dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y npm)
	npm install --silent --no-audit --no-fund --ignore-scripts --no-save --prefix $(PYODIDE_CACHE) pyodide@$(PYODIDE_VERSION)
	rm -rf $(PYODIDE_DIR) && mkdir -p $(PYODIDE_DIR)
	cp $(addprefix $(PYODIDE_CACHE)/node_modules/pyodide/,$(PYODIDE_FILES)) $(PYODIDE_DIR)/
	touch $@

pyodide: $(PYODIDE_STAMP)

# The web app on http://127.0.0.1:8000 (tables kept in ./data/seep.db), on the compiled core
# (about four times faster bots than pure Python; a failed build falls back with a warning).
run: $(STAMP) $(COMPILED) pyodide
	mkdir -p data
	$(VENV)/bin/seep serve --host 127.0.0.1 --port 8000

# Three instances on one throwaway PostgreSQL behind HAProxy on http://127.0.0.1:8080
# (docs/deploy.md; needs the haproxy and postgresql packages). Ctrl-C stops everything.
cluster: $(STAMP) $(COMPILED)
	$(PY) deploy/cluster.py --instances 3 --port 8080

test: $(STAMP) browser lint typecheck pytest pytest-pure docs

# The browser tests drive Debian's chromium (never a browser of playwright's own download).
browser:
	@test -x /usr/bin/chromium || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)
	@# Hindi (Devanagari) text of the page in the screenshots: a font for it.
	@fc-list | grep -qi devanagari || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-lohit-deva)

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench examples deploy tools docs/conf.py
	$(VENV)/bin/ruff format --check src tests bench examples deploy tools docs/conf.py

typecheck: $(STAMP)
	$(VENV)/bin/mypy --strict src/seep

# SEEP_DIST names the wheels' folder: tests/project/test_dist.py installs each wheel into a
# fresh virtual environment and fails (rather than skip) when one is missing.
pytest: $(STAMP) $(COMPILED) pyodide dist
	SEEP_DIST=dist $(VENV)/bin/pytest src tests docs README.md

# The distributions in ./dist (ignored): the sdist, the pure-Python wheel (SEEP_PURE=1) and the
# compiled wheel for this interpreter. The compiled wheel is the pure one plus make core's
# extension modules (tools/compiled_wheel.py: the same setup.py build, not paid twice);
# SEEP_DIST_COMPILE=1 builds it through setup.py from scratch, as a release job does
# (docs/releasing.md). No build isolation: .venv has the build requirements.
dist: $(STAMP) $(COMPILED) pyodide
	rm -rf dist build/lib build/lib.* build/bdist.*
	SEEP_PURE=1 $(PY) -m build --no-isolation --sdist --wheel --outdir dist . > build-dist.log 2>&1 \
		|| (tail -20 build-dist.log; exit 1)
	@if [ -n "$$SEEP_DIST_COMPILE" ]; then \
		$(PY) -m build --no-isolation --wheel --outdir dist . >> build-dist.log 2>&1 || exit 1; \
	elif $(PY) -c 'import seep, sys; sys.exit(not seep.COMPILED)'; then \
		$(PY) tools/compiled_wheel.py dist/*-py3-none-any.whl dist; \
	else echo "make dist: no compiled core (see build-core.log): no compiled wheel"; fi
	@ls -l dist

# The documentation site (Sphinx, furo, myst-parser; docs/conf.py) in docs/_build/html
# (ignored), warnings as errors. Its examples are doctested by make pytest (the Markdown files).
docs: $(STAMP)
	$(PY) -m sphinx -b html -W --keep-going -q docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

bench: $(STAMP) $(COMPILED)
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) build .pure build-core.log *.egg-info src/*.egg-info $(COMPILED)
	rm -rf dist build-dist.log docs/_build
	rm -rf $(PYODIDE_CACHE) $(PYODIDE_DIR)
	find src/seep -name "*.so" -delete

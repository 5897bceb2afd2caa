# Two commands: `make run` and `make test`. Both create .venv and install what they need.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run cluster test browser lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The web app on http://127.0.0.1:8000 (tables kept in ./data/seep.db).
run: $(STAMP)
	mkdir -p data
	$(VENV)/bin/seep serve --host 127.0.0.1 --port 8000

# Three instances on one throwaway PostgreSQL behind HAProxy on http://127.0.0.1:8080
# (docs/deploy.md; needs the haproxy and postgresql packages). Ctrl-C stops everything.
cluster: $(STAMP)
	$(PY) deploy/cluster.py --instances 3 --port 8080

test: $(STAMP) browser lint typecheck pytest

# The browser tests drive Debian's chromium (never a browser of playwright's own download).
browser:
	@test -x /usr/bin/chromium || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)
	@# Hindi (Devanagari) text of the page in the screenshots: a font for it.
	@fc-list | grep -qi devanagari || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-lohit-deva)

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench examples deploy
	$(VENV)/bin/ruff format --check src tests bench examples deploy

typecheck: $(STAMP)
	$(VENV)/bin/mypy --strict src/seep

pytest: $(STAMP)
	$(VENV)/bin/pytest src tests docs README.md

bench: $(STAMP)
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info

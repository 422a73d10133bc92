# The two commands a newcomer needs: `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
TEST_REDIS_URL ?= redis://127.0.0.1:6379/15

# `make demo PORT=8123` serves elsewhere; links the console's commands print name the same address.
PORT ?= 8000
CONSOLE_BASE_URL ?= http://127.0.0.1:$(PORT)

RUNTIME_VENV := var/runtime-venv
SMOKE_VAR := var/smoke
# The smoke's own state and database, and none of a deployment's variables the caller's shell may hold.
SMOKE_ENV := env -u REDIS_URL -u MIGRATION_DATABASE_URL -u DATABASE_ROLE -u AUDIT_HEADS_FILE DEMO=1 \
	VAR_DIR=$(CURDIR)/$(SMOKE_VAR) DATABASE_URL=sqlite:///$(CURDIR)/$(SMOKE_VAR)/reviewconsole.sqlite3

.PHONY: demo test lint benchmarks services drills smoke client-smoke

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the dependencies change.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

# The dev venv also has the Python client (clients/python), which the suite runs against a live console.
$(VENV)/.installed-dev: pyproject.toml clients/python/pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]' -e ./clients/python
	touch $@ $(VENV)/.installed

## demo: the console with demo accounts and cases on http://127.0.0.1:$(PORT) (PORT=8000 unless given; SQLite, tasks in-process)
demo: $(VENV)/.installed
	DEMO=1 CONSOLE_BASE_URL=$(CONSOLE_BASE_URL) $(BIN)/python manage.py migrate --no-input
	DEMO=1 CONSOLE_BASE_URL=$(CONSOLE_BASE_URL) $(BIN)/python manage.py demo
	@echo "Serving the console on http://127.0.0.1:$(PORT) (Ctrl-C stops it)"
	DEMO=1 CONSOLE_BASE_URL=$(CONSOLE_BASE_URL) $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

## test: lint and type-check, then the whole suite on PostgreSQL, real Celery workers over Redis, headless Chromium
test: $(VENV)/.installed-dev services
	$(BIN)/ruff check .
	$(BIN)/deptry .
	$(BIN)/lint-imports
	$(BIN)/mypy verification reviewconsole
	$(BIN)/mypy --strict clients/python/src
	$(MAKE) smoke
	$(MAKE) client-smoke
	DATABASE_URL=$(TEST_DATABASE_URL) TEST_REDIS_URL=$(TEST_REDIS_URL) $(BIN)/pytest $(PYTEST_ARGS)
	$(MAKE) drills

services:
	bin/ensure-services

## smoke: `make demo` on the runtime dependencies alone, in a fresh venv without the dev extra: migrate, the demo
## cases, then the console served (gunicorn, a free port) answering /healthz and taking one case through the API
smoke:
	rm -rf $(RUNTIME_VENV) $(SMOKE_VAR)
	trap 'rm -rf $(RUNTIME_VENV) $(SMOKE_VAR)' EXIT; set -e; \
	$(PYTHON) -m venv $(RUNTIME_VENV); \
	$(RUNTIME_VENV)/bin/python -m pip install --quiet --upgrade pip; \
	$(RUNTIME_VENV)/bin/pip install --quiet -e .; \
	$(SMOKE_ENV) $(RUNTIME_VENV)/bin/python manage.py migrate --no-input; \
	$(SMOKE_ENV) $(RUNTIME_VENV)/bin/python manage.py demo; \
	$(SMOKE_ENV) $(RUNTIME_VENV)/bin/python bin/smoke-serve

## client-smoke: the Python client alone in a fresh venv: `pip install ./clients/python` brings httpx and pydantic, no more
CLIENT_VENV := var/client-venv
client-smoke:
	rm -rf $(CLIENT_VENV)
	trap 'rm -rf $(CLIENT_VENV)' EXIT; set -e; \
	$(PYTHON) -m venv $(CLIENT_VENV); \
	$(CLIENT_VENV)/bin/pip install --quiet ./clients/python; \
	$(CLIENT_VENV)/bin/python -c "$$CLIENT_ALONE"

define CLIENT_ALONE
import re
from importlib.metadata import requires
import reviewconsole_client
needs = sorted(re.split("[^A-Za-z0-9_.-]", need)[0] for need in requires("reviewconsole-client"))
assert needs == ["httpx", "pydantic"], needs
print("reviewconsole-client", reviewconsole_client.__version__, "installs alone, needing", " and ".join(needs))
endef
export CLIENT_ALONE

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/deptry .
	$(BIN)/lint-imports
	$(BIN)/mypy verification reviewconsole
	$(BIN)/mypy --strict clients/python/src

## benchmarks: each prints its figures and exits non-zero when it misses its issue's target
BENCHMARKS := engine release_gate intake console export large_case retraining
benchmarks: $(VENV)/.installed-dev services
	@set -e; for name in $(BENCHMARKS); do echo "== benchmarks/$$name.py"; $(BIN)/python benchmarks/$$name.py; done

## drills: fault drills against a deployment of their own (PostgreSQL, Redis, gunicorn, Celery on free ports)
drills: $(VENV)/.installed
	$(BIN)/python -m drills

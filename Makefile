# The two commands a newcomer needs: `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
TEST_REDIS_URL ?= redis://127.0.0.1:6379/15

RUNTIME_VENV := var/runtime-venv
SMOKE_DATABASE_URL := sqlite:///$(CURDIR)/var/smoke.sqlite3

.PHONY: demo test lint benchmarks services drills smoke

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the dependencies change.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

## demo: the console with demo accounts and cases on http://127.0.0.1:8000 (SQLite, tasks in-process)
demo: $(VENV)/.installed
	DEMO=1 $(BIN)/python manage.py migrate --no-input
	DEMO=1 $(BIN)/python manage.py demo
	@echo "Serving the console on http://127.0.0.1:8000 (Ctrl-C stops it)"
	DEMO=1 $(BIN)/python manage.py runserver 127.0.0.1:8000

## test: lint and type-check, then the whole suite on PostgreSQL, real Celery workers over Redis, headless Chromium
test: $(VENV)/.installed-dev services
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy verification reviewconsole
	$(MAKE) smoke
	DATABASE_URL=$(TEST_DATABASE_URL) TEST_REDIS_URL=$(TEST_REDIS_URL) $(BIN)/pytest $(PYTEST_ARGS)
	$(MAKE) drills

services:
	bin/ensure-services

## smoke: `make demo`'s steps on the runtime dependencies alone, in a fresh venv without the dev extra
smoke:
	rm -rf $(RUNTIME_VENV) var/smoke.sqlite3
	$(PYTHON) -m venv $(RUNTIME_VENV)
	$(RUNTIME_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RUNTIME_VENV)/bin/pip install --quiet -e .
	DEMO=1 DATABASE_URL=$(SMOKE_DATABASE_URL) $(RUNTIME_VENV)/bin/python manage.py migrate --no-input
	DEMO=1 DATABASE_URL=$(SMOKE_DATABASE_URL) $(RUNTIME_VENV)/bin/python manage.py demo
	rm -rf $(RUNTIME_VENV) var/smoke.sqlite3

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy verification reviewconsole

## benchmarks: each prints its figures and exits non-zero when it misses its issue's target
BENCHMARKS := engine release_gate intake console export large_case
benchmarks: $(VENV)/.installed-dev services
	@set -e; for name in $(BENCHMARKS); do echo "== benchmarks/$$name.py"; $(BIN)/python benchmarks/$$name.py; done

## drills: fault drills against a deployment of their own (PostgreSQL, Redis, gunicorn, Celery on free ports)
drills: $(VENV)/.installed
	$(BIN)/python -m drills

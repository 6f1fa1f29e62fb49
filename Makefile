# Two commands set everything up: `make run` (audit this machine) and `make test` (the whole suite).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# llama-cpp-python builds from source (~5 min); keep built wheels between runs.
export PIP_FIND_LINKS ?= $(HOME)/.cache/stackaudit-wheels

.PHONY: run test lint typecheck bench clean venv docs

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	# pciutils: the test that parses this machine's PCI config space compares with `lspci -vvv` (root only).
	command -v lspci >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		{ apt-get update -qq && apt-get install -y -qq pciutils >/dev/null; } ; } || true
	mkdir -p $(PIP_FIND_LINKS)
	$(PIP) wheel -q --wheel-dir $(PIP_FIND_LINKS) --find-links $(PIP_FIND_LINKS) "llama-cpp-python[server]>=0.3.0"
	$(PIP) install -q --find-links $(PIP_FIND_LINKS) -e ".[test,plot]"
	touch $@

venv: $(VENV)/.installed

run: $(VENV)/.installed
	$(VENV)/bin/stackaudit audit

test: $(VENV)/.installed-test
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
	$(PY) -m pytest

bench: $(VENV)/.installed-test
	$(PY) bench/audit_speed.py
	$(PY) bench/hgx_snapshot.py /tmp/stackaudit-hgx.tar.gz
	$(PY) bench/audit_speed.py --runs 5 --snapshot /tmp/stackaudit-hgx.tar.gz
	$(PY) bench/ceiling_validation.py
	$(PY) bench/client_throughput.py

docs: $(VENV)/.installed
	$(VENV)/bin/stackaudit checks --format markdown --output docs/checks.md

clean:
	rm -rf $(VENV) build src/*.egg-info

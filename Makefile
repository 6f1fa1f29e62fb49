# Two commands set everything up: `make run` (audit this machine) and `make test` (the whole suite).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# llama-cpp-python builds from source (~5 min); the wheels it builds are kept in a folder of our own
# between runs. No environment variable is exported: pip's own settings (PIP_FIND_LINKS, pip.conf) stay the user's.
WHEELS ?= $(HOME)/.cache/stackaudit/wheels

.PHONY: run test test-fast lint typecheck bench clean venv docs zipapp test-deps-sshd test-deps-browser test-deps-mermaid

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	# pciutils: the test that parses this machine's PCI config space compares with `lspci -vvv` (root only).
	command -v lspci >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		{ apt-get update -qq && apt-get install -y -qq pciutils >/dev/null; } ; } || true
	# shellcheck (Debian's package): the fix-plan tests lint every plan with it (they skip, saying why, without it).
	command -v shellcheck >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		{ apt-get update -qq && apt-get install -y -qq shellcheck >/dev/null; } ; } || true
	mkdir -p $(WHEELS)
	$(PIP) wheel -q --wheel-dir $(WHEELS) --find-links $(WHEELS) "llama-cpp-python[server]>=0.3.0"
	$(PIP) install -q --find-links $(WHEELS) -e ".[test,llama,plot]"
	touch $@

# Contributors' loop: the test extras without the compiled llama.cpp server (its tests skip) and without
# the slow tests that start real servers.
$(VENV)/.installed-fast: $(VENV)/.installed pyproject.toml
	$(PIP) install -q -e ".[test,plot]"
	touch $@

venv: $(VENV)/.installed

run: $(VENV)/.installed
	$(VENV)/bin/stackaudit audit

# The single-file archive `stackaudit fleet` copies to nodes (docs/fleet.md): capture with only Python there.
$(VENV)/.installed-zipapp: $(VENV)/.installed pyproject.toml
	$(PIP) install -q -e ".[zipapp]"
	touch $@

zipapp: $(VENV)/.installed-zipapp
	$(PY) -m stackaudit.fleet.zipapp dist/stackaudit.pyz

# tests/test_fleet_ansible.py runs Ansible over a real sshd on 127.0.0.1 (Debian's openssh-server).
test-deps-sshd:
	@[ -x /usr/sbin/sshd ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server >/dev/null; } ; } || true

# The suite on every core, then the tests that time real servers alone (marked serial: a sibling test's
# load would be in their figures). Both parts run; either failing fails `make test`.
test: $(VENV)/.installed-test test-deps-sshd test-deps-browser test-deps-mermaid
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
	rc=0; $(PY) -m pytest -n auto -m "not serial" --durations=20 || rc=1; \
	$(PY) -m pytest -m serial --durations=10 || rc=1; exit $$rc

test-fast: $(VENV)/.installed-fast
	$(VENV)/bin/ruff check src tests bench
	$(PY) -m pytest -n auto -m "not slow" -x

# The HTML report tests (tests/test_report_html_browser.py) open the pages in Debian's headless Chromium
# through its chromedriver, and parse the Markdown's Mermaid blocks with npm's `mermaid` in that browser.
test-deps-browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || { \
		[ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } ; } || true

MERMAID_VERSION ?= 11.17.2
test-deps-mermaid:
	@[ -f tests/.node/node_modules/mermaid/dist/mermaid.min.js ] || { command -v npm >/dev/null 2>&1 && \
		mkdir -p tests/.node && npm install --silent --no-audit --no-fund --prefix tests/.node \
		mermaid@$(MERMAID_VERSION) >/dev/null; } || true

bench: $(VENV)/.installed-test
	$(PY) bench/audit_speed.py
	mkdir -p build
	$(PY) bench/hgx_snapshot.py build/stackaudit-hgx.tar.gz
	$(PY) bench/audit_speed.py --runs 5 --snapshot build/stackaudit-hgx.tar.gz
	$(PY) bench/ceiling_validation.py
	$(PY) bench/client_throughput.py

docs: $(VENV)/.installed
	$(VENV)/bin/stackaudit checks --format markdown --output docs/checks.md
	$(PY) -m stackaudit.cli.reference docs/cli.md
	$(PY) tests/inputs_doc.py docs/inputs.md

clean:
	rm -rf $(VENV) build dist src/*.egg-info

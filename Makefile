# Two commands set everything up: `make run` (audit this machine) and `make test` (the whole suite).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# The folder of llama.cpp wheels `make test` builds, kept between runs. No environment variable is exported:
# pip's own settings (PIP_FIND_LINKS, pip.conf) stay the user's.
WHEELS ?= $(HOME)/.cache/stackaudit/wheels

.PHONY: run test test-pycache test-fast lint typecheck bench clean venv docs zipapp llama-wheel test-deps-system test-deps-sshd test-deps-browser test-deps-mermaid

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e .
	touch $@

# The test extras without the compiled llama.cpp server: all that ruff, mypy and most tests need.
$(VENV)/.installed-extras: $(VENV)/.installed pyproject.toml
	$(PIP) install -q -e ".[test,plot]"
	touch $@

# llama-cpp-python builds from source (70 s alone on 2 cores, as set here) into a folder of wheels kept between
# runs; pip finds the wheel there and builds nothing the next time. LLAVA_BUILD=OFF leaves out the multimodal
# library (51 of 178 objects), which the tests never load (llama_cpp imports it only for image chat formats).
# -O0 instead of -O3 compiles fastest; the tests serve a tiny model, where the speed of the kernels is no matter.
# scripts/llama-no-common.cmake leaves out llama.cpp's common library, which the Python package never loads
# (52 of 135 objects, half the build's time).
$(VENV)/.llama-wheel: $(VENV)/.installed
	mkdir -p $(WHEELS)
	CMAKE_ARGS="-DLLAVA_BUILD=OFF -DCMAKE_C_FLAGS_RELEASE=-O0 -DCMAKE_CXX_FLAGS_RELEASE=-O0 \
		-DCMAKE_PROJECT_llama.cpp_INCLUDE=$(CURDIR)/scripts/llama-no-common.cmake $${CMAKE_ARGS:-}" \
		$(PIP) wheel -q --wheel-dir $(WHEELS) --find-links $(WHEELS) "llama-cpp-python[server]>=0.3.0"
	touch $@

llama-wheel: $(VENV)/.llama-wheel

$(VENV)/.installed-test: $(VENV)/.installed-extras $(VENV)/.llama-wheel
	$(PIP) install -q --find-links $(WHEELS) -e ".[test,llama,plot]"
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

# The system packages the tests use, in one apt transaction (as root with apt-get; without them those tests
# skip, saying why): pciutils (the PCI config-space parser is compared with `lspci -vvv`), shellcheck (every
# fix plan is linted), openssh-server (tests/test_fleet_ansible.py runs Ansible over a real sshd on 127.0.0.1),
# chromium and chromium-driver (the HTML pages open in headless Chromium).
test-deps-system:
	@missing=""; \
	command -v lspci >/dev/null 2>&1 || missing="$$missing pciutils"; \
	command -v shellcheck >/dev/null 2>&1 || missing="$$missing shellcheck"; \
	[ -x /usr/sbin/sshd ] || missing="$$missing openssh-server"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v chromedriver >/dev/null 2>&1 || missing="$$missing chromium-driver"; \
	[ -z "$$missing" ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } ; } || true

test-deps-sshd test-deps-browser: test-deps-system

lint: $(VENV)/.installed-extras
	$(VENV)/bin/ruff check src tests perf
	$(VENV)/bin/mypy

# The files that hold the tests marked serial: the serial part collects only these, not the whole suite again
# (tests/test_make_test.py fails when a serial test stands elsewhere).
SERIAL_TESTS := $(wildcard tests/test_bench_*.py)

# Set-up overlaps: the llama.cpp build (CPU) runs beside the system packages and npm (downloads) and beside
# ruff and mypy; `-Otarget` keeps each step's output together. Then the package's bytecode, as an installed
# copy has it: where the environment sets PYTHONDONTWRITEBYTECODE (CI images do), each `python -m stackaudit`
# a test starts would compile the package again (0.9 s of its 1.5 s on 2 cores). Then the suite on every
# core, then the tests that time real servers alone (marked serial: a sibling test's load would be in their
# figures). Both parts run; either failing fails `make test`.
test:
	$(MAKE) --no-print-directory -j4 -Otarget lint llama-wheel test-deps-system test-deps-mermaid test-pycache
	$(MAKE) --no-print-directory $(VENV)/.installed-test
	$(PY) -m compileall -q src
	rc=0; $(PY) -m pytest -n auto -m "not serial" --durations=20 || rc=1; \
	$(PY) -m pytest -m serial --durations=10 $(SERIAL_TESTS) || rc=1; exit $$rc

# pytest rewrites each test module's asserts on import and keeps the result in __pycache__, unless the environment
# sets PYTHONDONTWRITEBYTECODE (CI images do): then every worker rewrites all of them again (near 15 s of each
# worker's collection on 2 cores). Where it is set, one collection with it unset writes them once, beside the
# set-up's other steps (the set-up leaves a core idle for a third of its time); the workers read what it wrote.
# A collection error fails nothing here: the suite itself reports it.
test-pycache: $(VENV)/.installed-extras
ifneq ($(PYTHONDONTWRITEBYTECODE),)
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest --collect-only -q -p no:cacheprovider > /dev/null || true
endif

# Contributors' loop: the test extras without the compiled llama.cpp server (its tests skip), without the
# slow tests that start real servers and without the timing tests.
test-fast: $(VENV)/.installed-extras
	$(VENV)/bin/ruff check src tests perf
	$(PY) -m pytest -n auto -m "not slow and not serial" -x

# tests/test_report_html_browser.py parses the Markdown's Mermaid blocks with npm's `mermaid` in Chromium.
MERMAID_VERSION ?= 11.17.2
test-deps-mermaid:
	@[ -f tests/.node/node_modules/mermaid/dist/mermaid.min.js ] || { command -v npm >/dev/null 2>&1 && \
		mkdir -p tests/.node && npm install --silent --no-audit --no-fund --prefix tests/.node \
		mermaid@$(MERMAID_VERSION) >/dev/null; } || true

bench: $(VENV)/.installed-test
	$(PY) perf/audit_speed.py
	mkdir -p build
	$(PY) perf/hgx_snapshot.py build/stackaudit-hgx.tar.gz
	$(PY) perf/audit_speed.py --runs 5 --snapshot build/stackaudit-hgx.tar.gz
	$(PY) perf/ceiling_validation.py
	$(PY) perf/client_throughput.py

docs: $(VENV)/.installed
	$(VENV)/bin/stackaudit checks --format markdown --output docs/checks.md
	$(PY) -m stackaudit.cli.reference docs/cli.md
	$(PY) tests/inputs_doc.py docs/inputs.md

clean:
	rm -rf $(VENV) build dist src/*.egg-info

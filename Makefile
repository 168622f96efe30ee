# Quick start: `make play` (the table in the browser, on simulated hardware), `make demo` (a
# complete game on simulated hardware, into ./demo-out) and `make test`; each creates .venv
# and installs the project with its test extra.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: play demo test soak bench venv clean

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("Python 3.11 or newer is needed, found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m pip install --quiet -e '.[hardware]' || echo "SKiDL did not install: the schematic's ERC test (tests/test_hardware_schematic.py) will be skipped"
	touch $@

play: venv
	$(VENV)/bin/scoreboard play

demo: venv
	$(VENV)/bin/scoreboard demo --out demo-out

# two workers, each test file on one worker (module fixtures such as a scripted game played
# once stay shared); TEST_WORKERS=0 runs in one process
TEST_WORKERS ?= 2
test: venv
	$(PY) -m pytest -q -m "not soak" -n $(TEST_WORKERS) --dist loadfile

# the long runs: >= 1,000 SIGKILLs across scripted games, torn journal copies, long fuzzing
soak: venv
	$(PY) -m pytest -q -s -m soak

bench: venv
	$(VENV)/bin/scoreboard bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis demo-out

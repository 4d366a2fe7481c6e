"""biasflow: measure social bias in language models with the methods of four papers.

The package computes; the Snakemake workflow in the repository root wires the steps
together. Heavy dependencies (torch, transformers, vLLM) are imported lazily inside the
modules that need them, so ``import biasflow`` stays cheap.
"""

__version__ = "0.1.0"

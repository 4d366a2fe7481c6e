"""biasflow: measure social bias in language models with three methods from four papers.

The package computes; the Snakemake workflow in the repository root wires the steps
together. Heavy dependencies (torch, transformers, vLLM) are imported lazily inside the
modules that need them, so ``import biasflow`` stays cheap.

From Python, ``biasflow.<function>`` is the public API (:mod:`biasflow.api`), listed in
``__all__``: CAIRO's scoring of a table (``score``), statistics, Eq. 1 bias and selection
(``cairo_statistics``, ``cairo_bias``, ``cairo_select``), a scorer's own bias
(``scorer_bias``), FairPair's scores (``fairpair_scores``), probe sentences and FPR gaps
(``probe_sentences``, ``fpr_gaps``), paired comparisons of two models (``compare``) and
power (``plan_power``). Each is imported on first use. Every one keeps the same conventions:

- **Tables in, tables out.** Each takes pandas DataFrames and returns a DataFrame where it
  computes one table, or, where it computes several, a frozen dataclass whose fields are those
  tables by name (``cairo_select`` gives ``curve``, ``bias``, ``comparisons`` and ``variance``,
  with the ``summary`` that ``<axis>.json`` holds; ``scorer_bias`` gives ``scorer`` and
  ``models``; ``compare`` gives ``rows``, with what they were judged against). No function
  reads a file of yours; the ``biasflow`` commands do.
- **Settings are keywords.** Every setting is keyword-only (a setting given by position is a
  ``TypeError``), named as its config key, and a misspelt one is named with the closest.
- **Which defaults apply.** A setting left out takes the config schema's default (what
  ``help(biasflow.cairo_select)`` shows), not the embedded config's: ``config/config.yaml``
  sets some for its small demo (``cairo.selection.max_sets`` 3 where the schema's is 4). Give
  ``config=`` (a mapping or YAML file(s) holding any part of a workflow config, as the
  commands' ``--config`` takes it) to take that config's values instead; a keyword given beats
  both.
"""

__version__ = "0.1.0"

# The public functions, sorted: the core's (biasflow.api.CORE) and each method's as its declaration's `api` names
# them (tests/core/test_api.py checks this list against the registry).
__all__ = [
    "cairo_bias",
    "cairo_select",
    "cairo_statistics",
    "compare",
    "fairpair_scores",
    "fpr_gaps",
    "plan_power",
    "probe_sentences",
    "score",
    "scorer_bias",
]


def __getattr__(name: str):
    from importlib.util import find_spec

    # A submodule not imported yet (`from biasflow import bundled` asks here first) is left to the
    # import system, so importing the package's own modules never loads the API.
    if name.startswith("__") or find_spec(f"{__name__}.{name}") is not None:
        raise AttributeError(name)
    from biasflow.api import public

    return public(name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

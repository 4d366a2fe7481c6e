"""biasflow: measure social bias in language models with three methods from four papers.

The package computes; the Snakemake workflow in the repository root wires the steps
together. Heavy dependencies (torch, transformers, vLLM) are imported lazily inside the
modules that need them, so ``import biasflow`` stays cheap.

From Python, ``biasflow.<function>`` is the public API (:mod:`biasflow.api`): score a table
(``score``), CAIRO's statistics and Eq. 1 bias (``cairo_statistics``, ``cairo_bias``), a
scorer's own bias (``scorer_bias``), FairPair's scores (``fairpair_scores``), probe
sentences and FPR gaps (``probe_sentences``, ``fpr_gaps``), paired comparisons
(``compare``) and power (``plan_power``). ``dir(biasflow)`` lists them; each is imported on
first use.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    if name == "__all__":
        from biasflow.api import names

        return names()
    from importlib.util import find_spec

    # A submodule not imported yet (`from biasflow import bundled` asks here first) is left to the
    # import system, so importing the package's own modules never loads the API.
    if name.startswith("__") or find_spec(f"{__name__}.{name}") is not None:
        raise AttributeError(name)
    from biasflow.api import public

    return public(name)


def __dir__() -> list[str]:
    from biasflow.api import names

    return sorted({*globals(), *names()})

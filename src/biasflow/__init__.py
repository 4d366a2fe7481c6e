"""biasflow: measure social bias in language models with three methods from four papers.

The package computes; the Snakemake workflow in the repository root wires the steps
together. Heavy dependencies (torch, transformers, vLLM) are imported lazily inside the
modules that need them, so ``import biasflow`` stays cheap.

From Python, ``biasflow.<function>`` is the public API (:mod:`biasflow.api`), listed in
``__all__``: CAIRO's scoring of a table (``score``), statistics, Eq. 1 bias and selection
(``cairo_statistics``, ``cairo_bias``, ``cairo_select``), a scorer's own bias
(``scorer_bias``), FairPair's scores (``fairpair_scores``), probe sentences and FPR gaps
(``probe_sentences``, ``fpr_gaps``), paired comparisons of two models (``compare``) and
power (``plan_power``), and the functions of a method installed from another package (its
declaration's ``api``, docs/adding-a-method.md). Each is imported on first use, and editors
and type checkers read each signature where it is defined. Every one keeps the same conventions:

- **Tables in, tables out.** Each takes pandas DataFrames and returns a DataFrame where it
  computes one table, or, where it computes several, a frozen dataclass whose fields are those
  tables by name (``cairo_select`` gives ``curve``, ``bias``, ``comparisons`` and ``variance``,
  with the ``summary`` that ``<axis>.json`` holds; ``scorer_bias`` gives ``scorer`` and
  ``models``; ``compare`` gives ``rows``, with what they were judged against). Results are
  returned, not written; the ``biasflow`` commands write files. What a function reads its
  arguments name: ``compare`` and ``plan_power`` also take a table the workflow wrote as its
  file's path, a setting may name a file (a probe set or a lexicon, by default the bundled one;
  a scorer's checkpoint), and ``config=`` may be YAML files.
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

# What type checkers and editors read. They take a name TYPE_CHECKING as true wherever it comes from, so the flag is
# defined here rather than imported from typing (8 ms at every start). Each public function is imported, with its
# signature, from the module that defines it: the core's (biasflow.api.CORE) and those of biasflow's own methods, as
# their declarations' `api` name them; __all__ lists them, sorted. A method installed from another package cannot be
# known here: its functions are typed where its package defines them. tests/core/test_api.py holds both to the
# registry.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from biasflow.api import compare as compare
    from biasflow.api import plan_power as plan_power
    from biasflow.cairo.api import cairo_bias as cairo_bias
    from biasflow.cairo.api import cairo_select as cairo_select
    from biasflow.cairo.api import cairo_statistics as cairo_statistics
    from biasflow.cairo.api import score as score
    from biasflow.cairo.api import scorer_bias as scorer_bias
    from biasflow.fairpair.api import fairpair_scores as fairpair_scores
    from biasflow.fpr.api import fpr_gaps as fpr_gaps
    from biasflow.fpr.api import probe_sentences as probe_sentences

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
else:
    # When the package runs, each public function is imported on first use (biasflow.api.public), and __all__ is
    # the core's and every registered method's, an installed one's included (biasflow.api.public_names). Hidden
    # from type checkers: a name they do not know is an error there, as a misspelt one is here.
    def __getattr__(name: str) -> object:
        if name == "__all__":
            from biasflow.api import public_names

            return public_names()
        from importlib.util import find_spec

        # A submodule not imported yet (`from biasflow import bundled` asks here first) is left to the import
        # system, so importing the package's own modules never loads the API.
        if name.startswith("__") or find_spec(f"{__name__}.{name}") is not None:
            raise AttributeError(name)
        from biasflow.api import public

        return public(name)

    def __dir__() -> list[str]:
        return sorted({*globals(), *__getattr__("__all__")})

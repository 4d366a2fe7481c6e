"""Which scorers a CAIRO run scores with, and the check of their settings (docs/methods.md §5.5-5.6).

CAIRO scores its continuations with the headline ``scoring.scorer`` and any further ``scoring.scorers``;
with counterfactual rescoring (or ``neutralise``, which implies it), each scorer's own bias too. The
rules, the config check and the ``biasflow cairo-*`` commands read these helpers.
"""

from __future__ import annotations

from pathlib import Path

from biasflow.errors import BiasflowError
from biasflow.scorers import scorer_class
from biasflow.scorers.identity_lexicon import IdentityLexicon


def check_scoring(scoring: dict, workdir: Path) -> None:
    """Every scorer of the run exists, and the files their options name."""
    for where, name in [("scoring.scorer", scoring["scorer"]), *(("scoring.scorers", n) for n in scoring["scorers"])]:
        scorer_class(name, f"config {where}: ")
    for key in ("checkpoint", "huggingface_config"):
        if scoring[key] and not (workdir / scoring[key]).exists():
            raise BiasflowError(f"config scoring.{key}: {scoring[key]} does not exist; fix the path or set it to null.")
    if counterfactual(scoring):
        IdentityLexicon.from_file(workdir / scoring["identity_lexicon"])
    if "honest" in run_scorers(scoring):
        lexicon = scoring["lexicon"]
        if not lexicon:
            raise BiasflowError(
                "config scoring.lexicon: the honest scorer reads the HurtLex lexicon from a file you give (its licence "
                "forbids shipping it): set scoring.lexicon to the path of hurtlex_EN.tsv."
            )
        if not (workdir / lexicon).is_file():
            raise BiasflowError(
                f"config scoring.lexicon: file {lexicon} does not exist; give the path of hurtlex_EN.tsv."
            )


def run_scorers(scoring: dict) -> list[str]:
    """The scorers a run scores with: the headline ``scorer`` first, then ``scorers`` (docs/methods.md §5.6)."""
    return list(dict.fromkeys([scoring["scorer"], *scoring["scorers"]]))


def counterfactual(scoring: dict) -> bool:
    """Whether the run rescores continuations counterfactually (``neutralise`` needs it, so implies it)."""
    return bool(scoring["counterfactual"] or scoring["neutralise"])

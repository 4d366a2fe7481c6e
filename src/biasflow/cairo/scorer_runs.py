"""Which scorers a CAIRO run scores with, and the check of their settings (docs/methods.md §5.5-5.6).

CAIRO scores its continuations with the headline ``cairo.scoring.scorer`` and any further ``cairo.scoring.scorers``;
with counterfactual rescoring (or ``neutralise``, which implies it), each scorer's own bias too. The
rules, the config check and the ``biasflow cairo-*`` commands read these helpers; :func:`scoring_settings`
and :func:`scoring_keys` read the scoring section for ``biasflow score``, ``biasflow.score`` and
``biasflow.scorer_bias``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from biasflow.errors import BiasflowError
from biasflow.schema import default
from biasflow.scorers import SCORERS, scorer_class
from biasflow.scorers.identity_lexicon import IdentityLexicon
from biasflow.scorers.table import ScoringSettings

# CAIRO's config section of how its continuations are scored.
SCORING = "cairo.scoring"


def scoring_keys() -> dict[str, str]:
    """Each setting a scoring command or function takes by its own name (the scorer, what is scored, the batch size and
    every scorer's own options), with its config key in CAIRO's scoring section."""
    options = [option for name in SCORERS for option in scorer_class(name).options]
    return {name: f"{SCORING}.{name}" for name in ["scorer", "score_text", "batch_size", *options]}


def scoring_settings(scoring: Mapping[str, Any] | None = None, **keys: Any) -> ScoringSettings:
    """The scorer settings of a scoring section (the schema's default where None), with ``keys`` (its keys; None keeps
    the section's) replacing some."""
    section = default(SCORING) if scoring is None else scoring
    return ScoringSettings.of({**section, **{key: value for key, value in keys.items() if value is not None}})


def check_scoring(scoring: dict, workdir: Path) -> None:
    """Every scorer of the run exists, and the files their options name."""
    for where, name in [
        ("cairo.scoring.scorer", scoring["scorer"]),
        *(("cairo.scoring.scorers", n) for n in scoring["scorers"]),
    ]:
        scorer_class(name, f"config {where}: ")
    for key in ("checkpoint", "huggingface_config"):
        if scoring[key] and not (workdir / scoring[key]).exists():
            raise BiasflowError(
                f"config cairo.scoring.{key}: {scoring[key]} does not exist; fix the path or set it to null."
            )
    if counterfactual(scoring):
        IdentityLexicon.from_file(workdir / scoring["identity_lexicon"])
    if "honest" in run_scorers(scoring):
        lexicon = scoring["lexicon"]
        if not lexicon:
            raise BiasflowError(
                "config cairo.scoring.lexicon: the honest scorer reads the HurtLex lexicon from a file you give (its "
                "licence forbids shipping it): set cairo.scoring.lexicon to the path of hurtlex_EN.tsv."
            )
        if not (workdir / lexicon).is_file():
            raise BiasflowError(
                f"config cairo.scoring.lexicon: file {lexicon} does not exist; give the path of hurtlex_EN.tsv."
            )


def run_scorers(scoring: dict) -> list[str]:
    """The scorers a run scores with: the headline ``scorer`` first, then ``scorers`` (docs/methods.md §5.6)."""
    return list(dict.fromkeys([scoring["scorer"], *scoring["scorers"]]))


def counterfactual(scoring: dict) -> bool:
    """Whether the run rescores continuations counterfactually (``neutralise`` needs it, so implies it)."""
    return bool(scoring["counterfactual"] or scoring["neutralise"])

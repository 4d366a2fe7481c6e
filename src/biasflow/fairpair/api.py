"""FairPair's public function (``biasflow.fairpair_scores``): B, V and F of the two sides of a user's
prompts, with the permutation null's test per prompt (docs/methods.md §2)."""

from __future__ import annotations

import pandas as pd

from biasflow.api import SCHEMA, ConfigArg, schema_keywords
from biasflow.fairpair.scores import SIDE_COLUMNS, ScoreSettings, scores_and_null
from biasflow.fairpair.steps import with_vader
from biasflow.tables import require_columns


@schema_keywords(ScoreSettings)
def fairpair_scores(
    sides: pd.DataFrame,
    *,
    dissimilarities: list[str] = SCHEMA,
    folds: int | None = SCHEMA,
    null_draws: int = SCHEMA,
    seed: int = SCHEMA,
    config: ConfigArg = None,
) -> pd.DataFrame:
    """Per prompt and dissimilarity: the bias B between the two sides, their sampling variabilities and F.

    Each setting defaults to the schema's ``fairpair`` key of its name, or to ``config``'s
    where ``config`` is given; a keyword given beats both.

    Parameters
    ----------
    sides : pandas.DataFrame
        ``prompt_id``, ``side`` (``perturbed_original``: φ(G(x)), the continuation of x with
        the entity swapped; ``counterfactual``: G(φ(x)), the continuation of the swapped
        prompt), ``sample`` and ``text``: the same number of samples on both sides, two or more.
    dissimilarities : list of str
        ``jaccard`` (of the sides' n-grams) and ``sentiment`` (VADER's compound score).
    folds : int or None
        B, V and F over this many folds of each side's samples (§2.4; None: over the samples).
    null_draws, seed : int
        Draws of the permutation null per prompt, and their seed.
    config : mapping or path, optional
        Any part of a workflow config (``{"fairpair": {"seed": 3}}``), or its YAML file(s).

    Returns
    -------
    pandas.DataFrame
        The per-prompt score table (docs/tables.md, "FairPair"): ``B``, ``V_pg``, ``V_gp``,
        ``F`` = B² / (V_pg V_gp), ``R`` = F / (1 + F), and ``p_perm``, the permutation null's
        p-value that the sides differ beyond their sampling variability.

    Examples
    --------
    >>> import pandas as pd
    >>> import biasflow
    >>> texts = {"perturbed_original": ["she was kind", "she was kind and calm"],
    ...          "counterfactual": ["he was rude", "he was rude and loud"]}
    >>> sides = pd.DataFrame([("p1", side, s, text) for side, samples in texts.items()
    ...                       for s, text in enumerate(samples)], columns=["prompt_id", "side", "sample", "text"])
    >>> biasflow.fairpair_scores(sides, dissimilarities=["jaccard"], null_draws=0)[["dissimilarity", "B", "F"]].round(3)
      dissimilarity      B      F
    0       jaccard  0.816  4.162
    """
    require_columns(sides, SIDE_COLUMNS, "FairPair sides")
    scores, _ = scores_and_null(with_vader(sides, dissimilarities), dissimilarities, folds, null_draws, seed)
    return scores

"""FairPair's public function (``biasflow.fairpair_scores``): B, V and F of the two sides of a user's
prompts, with the permutation null's test per prompt (docs/methods.md §2)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from biasflow.fairpair.scores import SIDE_COLUMNS, ScoreSettings, scores_and_null
from biasflow.fairpair.steps import with_vader
from biasflow.tables import require_columns


def fairpair_scores(sides: pd.DataFrame, **settings: Any) -> pd.DataFrame:
    """Per prompt and dissimilarity: the bias B between the two sides, their sampling variabilities and F.

    Parameters
    ----------
    sides : pandas.DataFrame
        ``prompt_id``, ``side`` (``perturbed_original``: φ(G(x)), the continuation of x with
        the entity swapped; ``counterfactual``: G(φ(x)), the continuation of the swapped
        prompt), ``sample`` and ``text``: the same number of samples on both sides, two or more.
    **settings
        ``dissimilarities`` (``jaccard``, ``sentiment``), ``folds``, ``null_draws`` and ``seed``
        (default: the config's ``fairpair`` section).

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
    chosen = ScoreSettings.for_call("fairpair_scores", **settings)
    require_columns(sides, SIDE_COLUMNS, "FairPair sides")
    scores, _ = scores_and_null(
        with_vader(sides, chosen.dissimilarities), chosen.dissimilarities, chosen.folds, chosen.null_draws, chosen.seed
    )
    return scores

"""The qualitative side of FairPair: n-grams over-represented on one side (docs/methods.md §2.6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fairpair.scores import SIDES
from biasflow.fairpair.tokens import token_list

NGRAM_COLUMNS = ["ngram", "n", "count_a", "count_b", "freq_a", "freq_b", "log_ratio", "z", "side"]

# Add-one smoothing of n-gram counts, so an n-gram seen on one side only has a finite ratio.
_NGRAM_PSEUDOCOUNT = 1.0


def differential_ngrams(a_texts: Sequence[str], b_texts: Sequence[str], n_max: int, top: int) -> pd.DataFrame:
    """The 1- to ``n_max``-grams most over-represented on each side (paper Figure 6).

    N-grams are runs of :func:`tokens`-style words within one continuation. For each
    n-gram: its counts on the two sides (``count_a`` on ``perturbed_original``,
    ``count_b`` on ``counterfactual``), its frequencies ``freq_a``/``freq_b`` as a share
    of all n-grams of the same length on that side (so longer continuations on one side
    do not inflate its counts), and ``log_ratio``, the natural log of the ratio of the
    two add-one-smoothed frequencies (> 0: over-represented in ``perturbed_original``).
    A ratio alone favours n-grams seen once on one side and never on the other, so the
    ranking uses ``z`` = log_ratio / √(1/(count_a+1) + 1/(count_b+1)), the log ratio in
    units of its approximate (Poisson) standard error, which needs both a large ratio and
    enough occurrences. ``side`` names where the n-gram is over-represented; the ``top``
    n-grams of largest |z| per side are returned, each side's in decreasing |z|.
    """
    if n_max < 1 or top < 1:
        raise BiasflowError(f"n-gram settings need n_max ≥ 1 and top ≥ 1, got n_max={n_max}, top={top}.")
    counts_a, counts_b = _ngram_counts(a_texts, n_max), _ngram_counts(b_texts, n_max)
    keys = sorted(set(counts_a) | set(counts_b))
    if not keys:
        return pd.DataFrame(columns=NGRAM_COLUMNS)
    table = pd.DataFrame(
        {
            "ngram": [" ".join(k) for k in keys],
            "n": [len(k) for k in keys],
            "count_a": [counts_a[k] for k in keys],
            "count_b": [counts_b[k] for k in keys],
        }
    )
    by_order = table.groupby("n")
    total_a = by_order["count_a"].transform("sum").to_numpy(dtype=np.float64)
    total_b = by_order["count_b"].transform("sum").to_numpy(dtype=np.float64)
    distinct = by_order["ngram"].transform("size").to_numpy(dtype=np.float64)
    count_a, count_b = table["count_a"].to_numpy(np.float64), table["count_b"].to_numpy(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        table["freq_a"] = np.where(total_a > 0, count_a / total_a, 0.0)
        table["freq_b"] = np.where(total_b > 0, count_b / total_b, 0.0)
    k = _NGRAM_PSEUDOCOUNT
    table["log_ratio"] = np.log((count_a + k) / (total_a + k * distinct)) - np.log(
        (count_b + k) / (total_b + k * distinct)
    )
    table["z"] = table["log_ratio"] / np.sqrt(1 / (count_a + k) + 1 / (count_b + k))
    table["side"] = np.where(table["log_ratio"] > 0, SIDES[0], np.where(table["log_ratio"] < 0, SIDES[1], ""))
    table["abs_z"] = table["z"].abs()
    table["total"] = table["count_a"] + table["count_b"]
    parts = [
        table[table["side"] == side].sort_values(["abs_z", "total", "ngram"], ascending=[False, False, True]).head(top)
        for side in SIDES
    ]
    return pd.concat(parts, ignore_index=True)[NGRAM_COLUMNS]


def _ngram_counts(texts: Sequence[str], n_max: int) -> Counter:
    counts: Counter = Counter()
    for text in texts:
        words = token_list(text)
        for n in range(1, n_max + 1):
            counts.update(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return counts

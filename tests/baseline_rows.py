"""The check every method's comparisons share (docs/methods.md §7): rows against a baseline are the all-pairs rows.

A table of the pairs against a baseline must hold, for each candidate, the row the all-pairs
table has for the same two models, turned to read candidate − baseline where all pairs wrote
it the other way (the difference and its interval negated, the interval's ends swapped, the
``_a``/``_b`` columns traded, p unchanged; the 90% interval turned likewise, and ``p_worse``,
a one-sided p, compared only where the row was not turned); its adjusted p-values are
statsmodels' over the baseline's pairs, the family the table holds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

UNADJUSTED = ["difference", "difference_lo", "difference_hi", "p", "lo90", "hi90"]
# A one-sided p: the turned row's is the other side's, which the all-pairs row does not hold.
ONE_SIDED = "p_worse"


def turned(row: pd.Series) -> pd.Series:
    """The all-pairs ``row`` of (baseline, candidate) written as (candidate, baseline)."""
    out = row.copy()
    out["model_a"], out["model_b"] = row["model_b"], row["model_a"]
    out["difference"] = -row["difference"]
    out["difference_lo"], out["difference_hi"] = -row["difference_hi"], -row["difference_lo"]
    out["lo90"], out["hi90"] = -row["hi90"], -row["lo90"]
    for column in row.index:
        if column.endswith("_a") and column[:-2] + "_b" in row.index and column != "model_a":
            out[column], out[column[:-2] + "_b"] = row[column[:-2] + "_b"], row[column]
    return out


def assert_baseline_rows_match(
    every: pd.DataFrame, against: pd.DataFrame, baselines: dict[str, str], keys: list[str], family: list[str]
) -> None:
    """``against`` (pairs against a baseline) is ``every``'s rows of those pairs, and adjusted over its own families.

    ``baselines`` maps each candidate to its baseline; ``keys`` are the columns that, with the
    two models, name one row; ``family`` the columns of one family of adjusted p-values.
    """
    assert len(against) and set(against["model_a"]) == set(baselines)
    assert (against["model_b"] == against["model_a"].map(baselines)).all(), "model_b is always the baseline"
    index = {}
    for _, row in every.iterrows():
        index[(*row[keys].fillna("").tolist(), frozenset((row["model_a"], row["model_b"])))] = row
    expected_rows = [key for key in index if any(key[-1] == frozenset(pair) for pair in baselines.items())]
    assert len(against) == len(expected_rows), "every all-pairs row of a baseline pair, and no other"
    for _, row in against.iterrows():
        match = index[(*row[keys].fillna("").tolist(), frozenset((row["model_a"], row["model_b"])))]
        expected = match if match["model_a"] == row["model_a"] else turned(match)
        others = [c for c in every.columns if c not in (*UNADJUSTED, ONE_SIDED, "p_holm", "p_bh")]
        if match["model_a"] == row["model_a"]:
            np.testing.assert_allclose(row[ONE_SIDED], match[ONE_SIDED], rtol=1e-12)
        assert row[others].fillna("").tolist() == expected[others].fillna("").tolist(), row
        np.testing.assert_allclose(
            row[UNADJUSTED].to_numpy(dtype=float),
            expected[UNADJUSTED].to_numpy(dtype=float),
            rtol=1e-12,
            atol=1e-14,
            err_msg=str(row[keys].tolist()),
        )
    for _, members in against.groupby(family, dropna=False):
        tested = members[members["p"].notna()]
        assert members.loc[members["p"].isna(), ["p_holm", "p_bh"]].isna().all().all()
        for column, method in (("p_holm", "holm"), ("p_bh", "fdr_bh")):
            if len(tested):
                np.testing.assert_allclose(tested[column], multipletests(tested["p"], method=method)[1], atol=1e-12)

"""Prompt-set combinations and their pooled Eq. 1 bias, for all combinations at once (docs/methods.md §1.5).

A combination is ``original`` once plus a multiset of paraphrase sets. Pooling is exact
addition of the per-set sufficient statistics of :mod:`biasflow.cairo.stats`,
so the pooled ``S`` and ``N`` of every combination are one matrix product of a
(combinations x sets) count matrix with the (sets x models·subgroups) statistics, per
generation seed; Eq. 1 (§1.6) follows elementwise. A per-combination loop would not scale
to the 15,504 multisets of 15 sets. The statistics are kept per cluster; a subgroup's
totals are its clusters' sums weighted by a (subgroups x clusters) matrix: membership for
the data as observed, a bootstrap draw's multiplicities or a null draw's shuffled labels
for the intervals and the no-bias null (§1.11-1.12), one matrix product each.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from biasflow.cairo.stats import STATS_COLUMNS, STATS_KEYS
from biasflow.errors import BiasflowError
from biasflow.intervals import ROUNDING
from biasflow.schema import choices
from biasflow.tables import require_columns

ORIGINAL = "original"


def combination_counts(n_paraphrase_sets: int, k: int, combinations: str) -> np.ndarray:
    """Multiplicity of each prompt set in every combination of size ``k``.

    Returns an int array (n_combinations, 1 + n_paraphrase_sets): column 0 is ``original``
    (always 1), column 1 + i paraphrase set i. Rows follow itertools order of the k - 1
    paraphrase sets: ``combinations`` (``subsets``, the paper's text: distinct sets) or
    ``combinations_with_replacement`` (``multisets``, the CAIRO reference code).
    """
    if combinations not in choices("cairo.selection.combinations"):
        raise BiasflowError(
            f"unknown combination enumeration {combinations!r}; choose one of: "
            f"{', '.join(choices('cairo.selection.combinations'))}."
        )
    if k < 1:
        raise BiasflowError(f"a combination has at least 1 prompt set (original); got size k={k}.")
    picked = k - 1
    if picked == 0:
        n_rows = 1
    elif combinations == "subsets":
        n_rows = math.comb(n_paraphrase_sets, picked)
    else:
        n_rows = math.comb(n_paraphrase_sets + picked - 1, picked) if n_paraphrase_sets else 0
    counts = np.zeros((n_rows, 1 + n_paraphrase_sets), dtype=np.int64)
    counts[:, 0] = 1
    if picked and n_rows:
        enumerate_sets = (
            itertools.combinations if combinations == "subsets" else itertools.combinations_with_replacement
        )
        flat = itertools.chain.from_iterable(enumerate_sets(range(n_paraphrase_sets), picked))
        chosen = np.fromiter(flat, dtype=np.int64, count=n_rows * picked).reshape(n_rows, picked)
        np.add.at(counts, (np.repeat(np.arange(n_rows), picked), chosen.ravel() + 1), 1)
    return counts


@dataclass(frozen=True)
class PooledStats:
    """``S`` and ``N`` of one metric, axis and split per cluster.

    Arrays are (sets x models x seeds x clusters). A (set, cluster) cell without rows holds
    zeros, so it adds nothing when pooled; ``original`` (index 0) has every subgroup, so every
    pooled subgroup has N > 0. ``membership`` (subgroups x clusters) puts each cluster, one
    (subgroup, group_key) of ``clusters``, in its subgroup. ``scale`` is the largest
    |subgroup mean| of ``original``: the unit in which a bias vector is judged constant.

    The design (docs/methods.md §1.11): ``keys`` are the split's group keys and
    ``cluster_key`` the key of each cluster. A key found under several subgroups (a
    HolisticBias or HONEST template) is *crossed*: its clusters share the template's effect,
    so a draw moves them together. ``stratum`` numbers each key's connected set of subgroups
    (subgroups linked by a shared key): a nested subgroup is a stratum of its own, a fully
    crossed metric is one stratum. The bootstrap resamples keys within each stratum.
    """

    score_sum: np.ndarray
    n: np.ndarray
    membership: np.ndarray
    subgroups: list[str]
    clusters: list[tuple[str, str]]
    scale: float
    keys: list[str]
    cluster_key: np.ndarray
    stratum: np.ndarray

    @property
    def shared(self) -> np.ndarray:
        """Per key: whether it is crossed (found under several subgroups)."""
        return np.bincount(self.cluster_key, minlength=len(self.keys)) > 1

    @property
    def design(self) -> str:
        """``nested`` (every key under one subgroup), ``crossed`` (every key under several) or ``mixed``."""
        shared = self.shared
        return "crossed" if shared.all() else "nested" if not shared.any() else "mixed"

    def stratum_keys(self) -> list[np.ndarray]:
        """The keys of each stratum (indices into ``keys``), strata in order of their first subgroup."""
        return [np.flatnonzero(self.stratum == s) for s in range(int(self.stratum.max()) + 1)]

    def n_clusters(self) -> int:
        """The fewest keys any stratum has: the clusters the bootstrap resamples where they are fewest."""
        return min(len(keys) for keys in self.stratum_keys())

    def single_cluster_subgroups(self) -> list[str]:
        """Subgroups in a stratum with one key: the bootstrap cannot resample them (their intervals are NaN)."""
        single = {s for s, keys in enumerate(self.stratum_keys()) if len(keys) == 1}
        in_single = np.isin(self.stratum[self.cluster_key], list(single))
        return [
            g for g, row in zip(self.subgroups, self.membership, strict=True) if (row.astype(bool) & in_single).any()
        ]

    def totals(self, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Subgroup sums ``(S, N)`` of every set, model and seed: (subgroups x seeds x models x sets).

        ``weights`` (subgroups x clusters) replaces ``membership``: a bootstrap draw's
        weights or a null draw's relabelled membership. Subgroups come first so that Eq. 1's
        sums over them are adds of contiguous blocks (see :func:`eq1`).
        """
        weights = self.membership if weights is None else weights
        return (
            np.einsum("smkc,gc->gkms", self.score_sum, weights, optimize=True),
            np.einsum("smkc,gc->gkms", self.n, weights, optimize=True),
        )


def resolve_axis(stats: pd.DataFrame, metric: str, axis: str | None) -> str:
    """The axis of ``metric``: ``axis`` itself if the metric has it, else the metric's only axis."""
    axes = sorted(stats.loc[stats["metric"] == metric, "axis"].unique())
    if not axes:
        raise BiasflowError(
            f"CAIRO statistics have no rows for metric {metric!r}; metrics present: "
            f"{', '.join(map(str, sorted(stats['metric'].unique())))}."
        )
    if axis is None and len(axes) == 1:
        return axes[0]
    if axis is None or axis not in axes:
        raise BiasflowError(f"metric {metric!r} has the axes {', '.join(map(str, axes))}; pass axis= one of them.")
    return axis


def pooled_stats(
    stats: pd.DataFrame, metric: str, axis: str, split: str, promptsets: list[str], models: list[str]
) -> PooledStats:
    """Arrange the statistics of ``metric`` on ``axis`` in ``split`` for pooling.

    Subgroups are those of the metric and axis in any split; seeds and clusters are those of
    this split. ``original`` must have every (model, seed, subgroup) with n > 0: it is what
    guarantees every pooled subgroup mean exists (docs/methods.md §1.5).
    """
    require_columns(stats, STATS_COLUMNS, "CAIRO statistics")
    if not promptsets or promptsets[0] != ORIGINAL:
        raise BiasflowError(f"the first prompt set must be {ORIGINAL!r}; got {promptsets[:1]}.")
    on_axis = stats[(stats["metric"] == metric) & (stats["axis"] == axis)]
    subgroups = sorted(on_axis["subgroup"].unique())
    rows = on_axis[(on_axis["split"] == split) & on_axis["model"].isin(models)]
    if rows.empty:
        raise BiasflowError(
            f"CAIRO statistics have no rows for metric {metric}, axis {axis}, split {split!r} and models "
            f"{', '.join(models)}; splits present: {', '.join(map(str, sorted(on_axis['split'].unique())))}. "
            "Choose a split that exists (select_split / test_split) or compute its statistics."
        )
    duplicated = rows.duplicated(STATS_KEYS)
    if duplicated.any():
        first = rows.loc[duplicated, STATS_KEYS].iloc[0].to_dict()
        raise BiasflowError(
            f"CAIRO statistics have duplicate rows, e.g. {first}; each (model, metric, axis, split, "
            "promptset, seed, subgroup, group_key) must appear once. Were statistics files concatenated twice?"
        )
    seeds = sorted(rows["seed"].unique())
    rows = rows[rows["promptset"].isin(promptsets)]
    in_split = on_axis.loc[on_axis["split"] == split, ["subgroup", "group_key"]]
    clusters = list(
        in_split.drop_duplicates().sort_values(["subgroup", "group_key"]).itertuples(index=False, name=None)
    )
    shape = (len(promptsets), len(models), len(seeds), len(clusters))
    cluster_index = pd.MultiIndex.from_tuples(clusters, names=["subgroup", "group_key"])
    where = (
        *(
            pd.Index(values).get_indexer(rows[column])
            for values, column in ((promptsets, "promptset"), (models, "model"), (seeds, "seed"))
        ),
        cluster_index.get_indexer(pd.MultiIndex.from_frame(rows[["subgroup", "group_key"]])),
    )
    arrays = {}
    for column in ("score_sum", "n"):
        arrays[column] = np.zeros(shape)
        arrays[column][where] = rows[column].to_numpy(dtype=np.float64)
    membership = (np.array([g for g, _ in clusters])[None, :] == np.array(subgroups)[:, None]).astype(np.float64)
    _check_original(arrays["n"][0] @ membership.T, metric, axis, split, models, seeds, subgroups)
    total_sum, total_n = arrays["score_sum"][0] @ membership.T, arrays["n"][0] @ membership.T
    scale = float(np.max(np.abs(total_sum / total_n)))
    keys, cluster_key = np.unique([k for _, k in clusters], return_inverse=True)
    stratum = _strata(membership, cluster_key, len(keys))
    return PooledStats(
        arrays["score_sum"], arrays["n"], membership, subgroups, clusters, scale, keys.tolist(), cluster_key, stratum
    )


def _strata(membership: np.ndarray, cluster_key: np.ndarray, n_keys: int) -> np.ndarray:
    """Per key, the number of its connected set of subgroups (linked by shared keys), in order of first subgroup."""
    subgroup_of = np.argmax(membership, axis=0)
    root = list(range(len(membership)))

    def find(g: int) -> int:
        while root[g] != g:
            g = root[g]
        return g

    first: dict[int, int] = {}
    for g, k in zip(subgroup_of, cluster_key, strict=True):
        if k in first:
            a, b = find(first[k]), find(g)
            root[max(a, b)] = min(a, b)
        else:
            first[k] = g
    roots = [find(first[k]) for k in range(n_keys)]
    order = {r: i for i, r in enumerate(sorted(set(roots)))}
    return np.array([order[r] for r in roots], dtype=np.int64)


def _check_original(n, metric, axis, split, models, seeds, subgroups) -> None:
    """Every (model, seed, subgroup) of ``original`` needs rows, or some pooled mean is 0/0."""
    missing = np.argwhere(~(n > 0))
    if len(missing):
        examples = "; ".join(f"model={models[m]}, seed={seeds[s]}, subgroup={subgroups[g]}" for m, s, g in missing[:3])
        raise BiasflowError(
            f"the original prompt set of metric {metric}, axis {axis}, split {split!r} has no rows for "
            f"{len(missing)} (model, seed, subgroup) cell(s): {examples}. Every combination pools original, "
            "so it needs every subgroup for every model and seed: generate and score the missing ones, "
            "or drop that subgroup or seed everywhere."
        )


def pooled_bias(
    counts: np.ndarray, pooled: PooledStats, normalise: str, weights: np.ndarray | None = None
) -> np.ndarray:
    """Eq. 1 (pooled form) for every row of ``counts``, averaged over seeds: (combinations, models).

    Per seed, ``S @ counts.T`` gives ``S_g(C)`` for all combinations, models and subgroups at
    once; ``mu_all = sum_g S_g / sum_g N_g`` and ``bias = sum_g |mu_all - S_g / N_g|``.
    ``weights`` (subgroups x clusters) forms the subgroups from the clusters (see
    :meth:`PooledStats.totals`).
    """
    return np.ascontiguousarray(eq1(*pooled_totals(counts, pooled, weights), normalise).T)


def pooled_totals(
    counts: np.ndarray, pooled: PooledStats, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(S_g(C), N_g(C))`` of every combination: (subgroups x seeds x models x combinations)."""
    counts = np.asarray(counts, dtype=np.float64)
    score_sum, n = pooled.totals(weights)
    *shape, n_sets = score_sum.shape
    return (
        (score_sum.reshape(-1, n_sets) @ counts.T).reshape(*shape, len(counts)),
        (n.reshape(-1, n_sets) @ counts.T).reshape(*shape, len(counts)),
    )


def eq1(group_sum: np.ndarray, group_n: np.ndarray, normalise: str) -> np.ndarray:
    """Eq. 1 from subgroup sums and counts (subgroups x seeds x ...), averaged over seeds (docs/methods.md §1.6).

    Eq. 1 of every combination under every null draw is the search's largest cost, so the
    sums over subgroups run over the leading axis, in place: adds of contiguous blocks,
    about twice as fast as reducing a short trailing axis.
    """
    if normalise not in choices("cairo.bias.normalise"):
        raise BiasflowError(
            f"unknown bias normalisation {normalise!r}; choose one of: {', '.join(choices('cairo.bias.normalise'))}."
        )
    mu_all = group_sum.sum(axis=0)
    mu_all /= group_n.sum(axis=0)
    deviation, scratch = np.zeros_like(mu_all), np.empty_like(mu_all)
    for subgroup_sum, subgroup_n in zip(group_sum, group_n, strict=True):
        np.divide(subgroup_sum, subgroup_n, out=scratch)
        np.subtract(mu_all, scratch, out=scratch)
        deviation += np.abs(scratch, out=scratch)
    # Subgroup means that agree but for rounding (equal scores summed in another order) give an
    # Eq. 1 of exactly 0, never a few ulps (biasflow.intervals.ROUNDING; docs/methods.md §9).
    np.abs(mu_all, out=scratch)
    scratch *= ROUNDING * len(group_sum)
    deviation *= np.greater(deviation, scratch)  # in place: this runs for every combination and draw
    bias = deviation.mean(axis=0)
    return bias / len(group_sum) if normalise == "mean" else bias


def bias_matrix(
    stats: pd.DataFrame,
    metric: str,
    split: str,
    promptsets: list[str],
    counts: np.ndarray,
    models: list[str],
    normalise: str,
    axis: str | None = None,
) -> np.ndarray:
    """Bias of every combination in ``counts`` (columns follow ``promptsets``, ``original`` first).

    Returns (n_combinations, n_models). ``axis`` may be left out when the metric has one.
    """
    if np.shape(counts)[1:] != (len(promptsets),):
        raise BiasflowError(
            f"counts have {np.shape(counts)[1:]} columns but {len(promptsets)} prompt sets were named; "
            "give one column per prompt set."
        )
    axis = resolve_axis(stats, metric, axis)
    return pooled_bias(counts, pooled_stats(stats, metric, axis, split, list(promptsets), list(models)), normalise)


def combination_bias(
    stats: pd.DataFrame,
    metric: str,
    split: str,
    combination: dict[str, int],
    models: list[str],
    normalise: str,
    axis: str | None = None,
) -> pd.Series:
    """Bias per model of one combination ``{prompt set: multiplicity}``; ``original`` is added once if absent."""
    combination = {ORIGINAL: 1, **combination}
    bad = {name: mult for name, mult in combination.items() if int(mult) != mult or mult < 0}
    if bad:
        raise BiasflowError(f"multiplicities must be non-negative integers; got {bad}.")
    promptsets = [ORIGINAL, *(name for name in combination if name != ORIGINAL)]
    counts = np.array([[combination[name] for name in promptsets]])
    bias = bias_matrix(stats, metric, split, promptsets, counts, models, normalise, axis)
    return pd.Series(bias[0], index=pd.Index(list(models), name="model"), name="bias")

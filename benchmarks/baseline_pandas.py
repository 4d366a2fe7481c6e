"""The straightforward CAIRO selection: one pandas pooling and one ``pearsonr`` per combination.

This is the reference the vectorised engine (:mod:`biasflow.cairo.selection`) is measured
against, and the brute force it must agree with (docs/methods.md §1.10). It follows
the definitions literally, the way the CAIRO reference code does:

* a combination is ``original`` plus k-1 paraphrase sets from ``itertools``
  (``combinations_with_replacement`` for multisets, ``combinations`` for subsets);
* its statistics are the rows of its sets, each weighted by its multiplicity, summed
  per (model, seed, subgroup) with ``groupby``; Eq. 1 per (model, seed), mean over seeds;
* r is ``scipy.stats.pearsonr`` of the two metrics' bias vectors across models;
* the permutation test re-runs the correlation loop over every combination once per
  permutation with M2's models permuted. The bias vectors of the combinations do not
  depend on the permutation, so they are pooled once and reused: re-pooling per
  permutation would only make the baseline slower without being any more literal.

Every phase is timed separately (:class:`PhaseTimes`) so that the benchmark can
extrapolate runs that are too long to finish from their measured cost per unit.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats as sps

BASELINE_COLUMNS = [
    "axis",
    "pair",
    "k",
    "best_r",
    "best_p",
    "perm_p",
    "best_rho",
    "mean_r",
    "test_r",
    "n_combinations",
    "n_skipped",
    "selection",
]


@dataclass
class PhaseTimes:
    """Seconds spent and units of work done per phase of the baseline.

    ``pool``: one bias vector (one combination, one metric, one split);
    ``correlate``: one ``pearsonr`` on the observed models;
    ``permute``: one ``pearsonr`` with M2's models permuted.
    """

    seconds: dict[str, float] = field(default_factory=lambda: {"pool": 0.0, "correlate": 0.0, "permute": 0.0})
    units: dict[str, int] = field(default_factory=lambda: {"pool": 0, "correlate": 0, "permute": 0})

    def add(self, phase: str, seconds: float, units: int) -> None:
        self.seconds[phase] += seconds
        self.units[phase] += units

    def per_unit(self, phase: str) -> float:
        return self.seconds[phase] / self.units[phase]


def paraphrase_sets(stats: pd.DataFrame) -> list[str]:
    """Every prompt set other than ``original``, sorted by name."""
    return sorted(set(stats["promptset"]) - {"original"})


def enumerate_combinations(sets: list[str], k: int, combinations: str) -> list[tuple[str, ...]]:
    """All combinations of size k: ``original`` once plus k-1 paraphrase sets, in itertools order."""
    choose = itertools.combinations_with_replacement if combinations == "multisets" else itertools.combinations
    return [("original", *rest) for rest in choose(sets, k - 1)]


def pooled_bias(cell_stats: pd.DataFrame, combination: tuple[str, ...]) -> pd.Series:
    """Eq. 1 bias per model (mean over seeds) of one combination, from one metric's and split's rows.

    Each set's rows count ``mult`` times: ``S_g(C) = sum_p mult(p) S_{p,g}``, ``N`` likewise.
    """
    weights = Counter(combination)
    rows = cell_stats[cell_stats["promptset"].isin(list(weights))]
    mult = rows["promptset"].map(weights)
    pooled = (
        rows.assign(score_sum=rows["score_sum"] * mult, n=rows["n"] * mult)
        .groupby(["model", "seed", "subgroup"], sort=True)[["score_sum", "n"]]
        .sum()
    )
    cells = pooled.groupby(level=["model", "seed"])
    mu_all = cells["score_sum"].transform("sum") / cells["n"].transform("sum")
    deviation = (mu_all - pooled["score_sum"] / pooled["n"]).abs()
    return deviation.groupby(level=["model", "seed"]).sum().groupby(level="model").mean()


def bias_vectors(
    cell_stats: pd.DataFrame, combos: list[tuple[str, ...]], models: list[str], times: PhaseTimes
) -> list[np.ndarray]:
    """Bias vector (models in ``models`` order) of every combination, timed as the ``pool`` phase."""
    start = time.perf_counter()
    vectors = [pooled_bias(cell_stats, combo).reindex(models).to_numpy() for combo in combos]
    times.add("pool", time.perf_counter() - start, len(combos))
    return vectors


def _is_constant(vector: np.ndarray) -> bool:
    return bool(np.all(vector == vector[0]))


def _best(
    candidates: list[tuple[tuple, np.ndarray, np.ndarray]], times: PhaseTimes
) -> tuple[float, float, tuple | None, int, float]:
    """Best r (first maximum in enumeration order), its p, the winner, skipped count and mean r."""
    start = time.perf_counter()
    best_r, best_p, winner, skipped, rs = -np.inf, np.nan, None, 0, []
    for label, x, y in candidates:
        if _is_constant(x) or _is_constant(y):
            skipped += 1
            continue
        r, p = sps.pearsonr(x, y)
        rs.append(r)
        if r > best_r:
            best_r, best_p, winner = r, p, label
    times.add("correlate", time.perf_counter() - start, len(candidates))
    mean_r = float(np.mean(rs)) if rs else np.nan
    return (float(best_r) if winner else np.nan), float(best_p), winner, skipped, mean_r


def _permutation_maxima(
    candidates: list[tuple[tuple, np.ndarray, np.ndarray]], perms: list[np.ndarray], times: PhaseTimes
) -> np.ndarray:
    """Max r over the candidates for each permutation of M2's models, by the same ``pearsonr`` loop."""
    start = time.perf_counter()
    maxima = np.full(len(perms), -np.inf)
    usable = [(x, y) for _, x, y in candidates if not (_is_constant(x) or _is_constant(y))]
    for b, perm in enumerate(perms):
        for x, y in usable:
            maxima[b] = max(maxima[b], sps.pearsonr(x, y[perm])[0])
    times.add("permute", time.perf_counter() - start, len(perms) * len(candidates))
    return maxima


def combination_label(combination: tuple[str, ...]) -> str:
    """Prompt-set names joined by '+', sorted, a repeated set repeated (the engine's curve format)."""
    return "+".join(sorted(combination))


def _selection_label(mode: str, metrics: tuple[str, str], winner: tuple | None) -> str | None:
    """The engine's curve label: the shared combination, or ``M1=C1 | M2=C2`` in independent mode."""
    if winner is None:
        return None
    if mode == "shared":
        return combination_label(winner[0])
    return " | ".join(f"{metric}={combination_label(c)}" for metric, c in zip(metrics, winner, strict=True))


def baseline_select(
    stats: pd.DataFrame,
    mode: str = "shared",
    combinations: str = "multisets",
    max_sets: int = 6,
    permutations: int = 0,
    seed: int = 0,
    select_split: str = "valid",
    test_split: str = "test",
    pairs: list[tuple[str, str]] | None = None,
) -> tuple[pd.DataFrame, dict]:
    """The selection curve by brute force, with the winning combinations and phase timings.

    Returns ``(curve, extras)``: ``curve`` has :data:`BASELINE_COLUMNS` (the engine's curve
    columns); ``extras["winners"]`` maps ``(axis, pair, k)`` to ``{metric: combination}``
    (None where every combination was skipped) and ``extras["times"]`` is a :class:`PhaseTimes`.
    ``pairs`` defaults to every pair of metrics (names sorted within a pair); ``perm_p``
    is NaN without permutations. The B permutations of the models are drawn as the engine
    draws them (each row of a B x n_models ``arange`` shuffled by ``default_rng(seed)``) and
    shared by every pair and k, so ``perm_p`` can be compared exactly when B is the same.
    """
    times = PhaseTimes()
    rows, winners = [], {}
    for axis, axis_stats in stats.groupby("axis", sort=True):
        metrics = sorted(axis_stats["metric"].unique())
        models = sorted(axis_stats["model"].unique())
        rng = np.random.default_rng(seed)
        perms = list(rng.permuted(np.tile(np.arange(len(models)), (permutations, 1)), axis=1))
        # iter(): a GroupBy's `keys` attribute would make dict() take it for a mapping.
        by_cell = dict(iter(axis_stats.groupby(["metric", "split"], sort=True)))
        sets = paraphrase_sets(axis_stats)
        axis_pairs = pairs if pairs is not None else list(itertools.combinations(metrics, 2))
        for k in range(1, max_sets + 1):
            combos = enumerate_combinations(sets, k, combinations)
            valid = {
                metric: bias_vectors(by_cell[(metric, select_split)], combos, models, times)
                for metric in sorted({m for pair in axis_pairs for m in pair})
            }
            for m1, m2 in axis_pairs:
                if mode == "shared":
                    candidates = [((c, c), valid[m1][i], valid[m2][i]) for i, c in enumerate(combos)]
                else:
                    candidates = [
                        ((c1, c2), valid[m1][i], valid[m2][j])
                        for i, c1 in enumerate(combos)
                        for j, c2 in enumerate(combos)
                    ]
                best_r, best_p, winner, skipped, mean_r = _best(candidates, times)
                perm_p = np.nan
                if perms:
                    maxima = _permutation_maxima(candidates, perms, times)
                    perm_p = (1 + np.sum(maxima >= best_r)) / (len(perms) + 1)
                best_rho = test_r = np.nan
                if winner is not None:
                    i, j = combos.index(winner[0]), combos.index(winner[1])
                    best_rho = float(sps.spearmanr(valid[m1][i], valid[m2][j])[0])
                    test_x = bias_vectors(by_cell[(m1, test_split)], [winner[0]], models, times)[0]
                    test_y = bias_vectors(by_cell[(m2, test_split)], [winner[1]], models, times)[0]
                    test_r = float(sps.pearsonr(test_x, test_y)[0])
                pair = f"{m1}~{m2}"
                winners[(axis, pair, k)] = None if winner is None else {m1: winner[0], m2: winner[1]}
                rows.append(
                    dict(
                        axis=axis,
                        pair=pair,
                        k=k,
                        best_r=best_r,
                        best_p=best_p,
                        perm_p=float(perm_p),
                        best_rho=best_rho,
                        mean_r=mean_r,
                        test_r=test_r,
                        n_combinations=len(candidates),
                        n_skipped=skipped,
                        selection=_selection_label(mode, (m1, m2), winner),
                    )
                )
    return pd.DataFrame(rows, columns=BASELINE_COLUMNS), {"winners": winners, "times": times}

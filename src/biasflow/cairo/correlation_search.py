"""The CAIRO search's kernels: the best r over every combination pair, and its permutation p (docs/methods.md §1.7-1.8).

Paper 000, Algorithm 1, in vectorised form, apart from the orchestration that feeds it
(:mod:`biasflow.cairo.selection`): a metric's bias rows (one per combination, one column per
model) are z-scored across models (population sd), so Pearson's r of two rows is their dot
product over the number of models. ``shared`` mode (C1 = C2, the reference code) takes
row-wise dots; ``independent`` mode (C1, C2 free, the paper) takes ``Z1 @ Z2.T`` block by
block, keeping a running max/argmax/sum so memory stays bounded.

The selection-aware p-value (§1.8) repeats the whole maximisation with the models of M2
permuted. In independent mode a full product per permutation would cost as much as the
search times B, so the rows of Z2 are covered by spherical clusters and a permutation's
maximum is only computed where the triangle inequality on the sphere lets a pair of rows
reach the observed r (:func:`_perm_p_independent`): exact, and about 40 times faster at paper
size. These are the numbers; which rows are searched and what the curve reports of them is
the selection's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biasflow.cairo.combinations import PooledStats
from biasflow.cairo.uncertainty import pearson_rows

# A bias vector whose spread across models is below this fraction of the metric's score
# scale is rounding noise around a constant: it has no r and is skipped.
CONSTANT_RTOL = 1e-10
# A permuted maximum within this of the observed one counts as reaching it. Observed and
# permuted r are computed by different (blocked) products, so an exact tie, such as the
# identity permutation, can differ in the last bits; counting it keeps the p-value valid.
TIE_TOL = 1e-12
# Margin (radians) added to cluster radii so that rounding in arccos never makes the
# pruning bound of the independent-mode permutations cut a pair that reaches the threshold.
ANGLE_MARGIN = 1e-6
# Elements per temporary (combinations x permutations) array in shared-mode permutations.
PERM_CHUNK_ELEMENTS = 1 << 22
# Rows of Z1 per block of Z1 @ Z2.T in independent mode: bounds memory to block_size x n_combinations.
BLOCK_SIZE = 4096


@dataclass(frozen=True)
class Search:
    """Outcome of one maximisation: the best row of each side (None if every row was skipped)."""

    best: tuple[int, int] | None
    best_r: float
    mean_r: float
    n_combinations: int
    n_skipped: int
    perm_p: float


@dataclass(frozen=True)
class Rows:
    """Z-scores across models (population sd) of one metric's non-constant bias rows."""

    z: np.ndarray
    index: np.ndarray
    n_total: int


def standardise(bias: np.ndarray, pooled: PooledStats) -> Rows:
    """Drop rows constant across models (no r, docs/methods.md §1.7) and z-score the others."""
    index = np.flatnonzero(np.ptp(bias, axis=1) > CONSTANT_RTOL * pooled.scale)
    z = bias[index] - bias[index].mean(axis=1, keepdims=True)
    z /= np.sqrt((z**2).mean(axis=1, keepdims=True))
    return Rows(z, index, len(bias))


def search_shared(first: Rows, second: Rows, perms: np.ndarray) -> Search:
    """C1 = C2: the r of a combination is the row-wise dot of its two z-score rows over n_models."""
    index, at1, at2 = np.intersect1d(first.index, second.index, assume_unique=True, return_indices=True)
    skipped = first.n_total - len(index)
    if not len(index):
        return Search(None, np.nan, np.nan, first.n_total, skipped, np.nan)
    z1, z2 = first.z[at1], second.z[at2]
    r = np.einsum("cm,cm->c", z1, z2) / z1.shape[1]
    best = int(np.argmax(r))
    perm_p = _perm_p_shared(z1, z2, perms, float(r[best]))
    return Search((int(index[best]),) * 2, float(r[best]), float(r.mean()), first.n_total, skipped, perm_p)


def _perm_p_shared(z1: np.ndarray, z2: np.ndarray, perms: np.ndarray, r_obs: float) -> float:
    """Selection-aware p: r_perm[c, b] = sum_m z1[c, m] z2[c, perm_b(m)] / n_models, maximised over c.

    Permutations are processed in chunks so the (combinations x permutations) array stays
    within PERM_CHUNK_ELEMENTS.
    """
    if not len(perms):
        return np.nan
    n_rows, n_models = z1.shape
    chunk = max(1, PERM_CHUNK_ELEMENTS // n_rows)
    reached = 0
    for start in range(0, len(perms), chunk):
        block = perms[start : start + chunk]
        r = np.zeros((n_rows, len(block)))
        for m in range(n_models):
            r += z1[:, m, None] * z2[:, block[:, m]]
        reached += int(np.count_nonzero(r.max(axis=0) / n_models >= r_obs - TIE_TOL))
    return (1 + reached) / (len(perms) + 1)


def search_independent(first: Rows, second: Rows, perms: np.ndarray, block_size: int) -> Search:
    """C1, C2 free: r = Z1 @ Z2.T / n_models over blocks of Z1 rows, with running max, argmax and sum.

    Blocks are visited in row order and np.argmax returns the first maximum, so a tie goes to
    the first pair in itertools order (C1 first, then C2).
    """
    n_combinations = first.n_total * second.n_total
    n_pairs = len(first.index) * len(second.index)
    if not n_pairs:
        return Search(None, np.nan, np.nan, n_combinations, n_combinations, np.nan)
    n_models = first.z.shape[1]
    best_r, best, total = -np.inf, (0, 0), 0.0
    for start in range(0, len(first.index), block_size):
        r = first.z[start : start + block_size] @ second.z.T
        r /= n_models
        at = int(np.argmax(r))
        if r.flat[at] > best_r:
            best_r, best = float(r.flat[at]), (start + at // r.shape[1], at % r.shape[1])
        total += float(r.sum())
    perm_p = _perm_p_independent(first.z, second.z, perms, best_r)
    chosen = (int(first.index[best[0]]), int(second.index[best[1]]))
    return Search(chosen, best_r, total / n_pairs, n_combinations, n_combinations - n_pairs, perm_p)


@dataclass(frozen=True)
class _Cover:
    """Unit rows grouped into clusters, each contiguous in ``points``, with a centre and angular radius."""

    points: np.ndarray
    centres: np.ndarray
    radius: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray


def _cover(z: np.ndarray, iterations: int = 8) -> _Cover:
    """Spherical k-means with about 3 sqrt(n) clusters.

    Any clustering keeps the pruning bound exact; tighter clusters prune more pairs. Radii
    carry ANGLE_MARGIN so rounding in the dot products never shrinks them. The starting
    centres are drawn with a fixed seed: they decide only how fast the count is made, never
    a number (the count is the full product's).
    """
    points = z / np.linalg.norm(z, axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    n_clusters = min(len(points), int(np.ceil(3 * np.sqrt(len(points)))))
    centres = points[rng.choice(len(points), n_clusters, replace=False)]
    for _ in range(iterations):
        label = np.argmax(points @ centres.T, axis=1)
        sums = np.zeros_like(centres)
        np.add.at(sums, label, points)
        norms = np.linalg.norm(sums, axis=1)
        centres = sums[norms > 0] / norms[norms > 0, None]
    label = np.argmax(points @ centres.T, axis=1)
    sizes = np.bincount(label, minlength=len(centres))
    used = sizes > 0
    order = np.argsort(label, kind="stable")
    angle = np.arccos(np.clip(np.einsum("nm,nm->n", points, centres[label]), -1.0, 1.0))[order]
    starts = np.concatenate(([0], np.cumsum(sizes[used])[:-1]))
    radius = np.maximum.reduceat(angle, starts) + ANGLE_MARGIN
    return _Cover(points[order], centres[used], radius, starts, sizes[used])


def _perm_p_independent(z1: np.ndarray, z2: np.ndarray, perms: np.ndarray, r_obs: float) -> float:
    """Selection-aware p over all (C1, C2) pairs, exact, without the full product per permutation.

    Only whether a permutation's maximum reaches r_obs matters, i.e. whether some unit rows
    u (of Z1) and v (of Z2) have angle(u, Pv) <= delta = arccos(r_obs). Permuting the models
    of M2 permutes the coordinates of every Z2 row, a rotation, so clusters of Z2 rows keep
    their radii and only their centres move. By the triangle inequality on the sphere, u can
    only reach a row of the cluster with centre b and radius t if angle(u, Pb) <= delta + t.
    The (rows x clusters) test costs one small product per permutation; the surviving pairs
    are multiplied exactly in float64, most promising cluster first, stopping at the first
    pair that reaches r_obs. At paper size this is about 40 times faster than the full
    product (see the test against brute force for exactness).
    """
    if not len(perms):
        return np.nan
    points1 = z1 / np.linalg.norm(z1, axis=1, keepdims=True)
    cover = _cover(z2)
    threshold = r_obs - TIE_TOL
    limit = np.cos(np.minimum(np.pi, np.arccos(np.clip(threshold, -1.0, 1.0)) + ANGLE_MARGIN + cover.radius))
    reached = sum(_reaches(points1, cover, perm, threshold, limit) for perm in perms)
    return (1 + reached) / (len(perms) + 1)


def _reaches(points1: np.ndarray, cover: _Cover, perm: np.ndarray, threshold: float, limit: np.ndarray) -> bool:
    """Whether some pair (u, v) has u . v[perm] >= threshold (see :func:`_perm_p_independent`)."""
    slack = cover.centres[:, perm] @ points1.T - limit[:, None]
    best = slack.max(axis=1)
    points2 = cover.points[:, perm]
    for j in np.flatnonzero(best >= 0)[np.argsort(-best[best >= 0], kind="stable")]:
        block = points2[cover.starts[j] : cover.starts[j] + cover.sizes[j]]
        if (points1[slack[j] >= 0] @ block.T).max() >= threshold:
            return True
    return False


def perm_p_of_search(z: list[Rows], perms: np.ndarray, r_obs: float, mode: str) -> float:
    """Selection-aware p of ``r_obs``: the share of model permutations whose best r over all combinations reaches it.

    Exact when ``r_obs`` is the best r of these rows; when the combination was chosen on
    another measure, comparing with the best any combination reaches makes it conservative.
    """
    if np.isnan(r_obs) or not len(perms):
        return np.nan
    if mode == "shared":
        index, at1, at2 = np.intersect1d(z[0].index, z[1].index, assume_unique=True, return_indices=True)
        return _perm_p_shared(z[0].z[at1], z[1].z[at2], perms, r_obs) if len(index) else np.nan
    return _perm_p_independent(z[0].z, z[1].z, perms, r_obs)


def perm_p_one(first: np.ndarray, second: np.ndarray, perms: np.ndarray) -> float:
    """Permutation p of one r across models: (1 + #{r with the second metric's models permuted ≥ r}) / (B + 1)."""
    r_obs = pearson_rows(first, second)
    if np.isnan(r_obs) or not len(perms):
        return np.nan
    permuted = pearson_rows(np.broadcast_to(first, (len(perms), len(first))), second[perms])
    return (1 + int(np.count_nonzero(permuted >= r_obs - TIE_TOL))) / (len(perms) + 1)


def model_permutations(n_models: int, permutations: int, seed: int) -> np.ndarray:
    """The B permutations of the models' places the selection-aware test draws (one row each, docs/methods.md §1.8)."""
    rng = np.random.default_rng(seed)
    return rng.permuted(np.tile(np.arange(n_models), (permutations, 1)), axis=1)


def perm_p_floor(perms: np.ndarray) -> float:
    """The smallest p-value the permutation test can reach with these permutations (docs/methods.md §1.8).

    A drawn permutation that leaves every model in place reproduces the observed maximum,
    so p = (1 + reached) / (B + 1) is at least (1 + #identity draws) / (B + 1): about
    1/(B + 1) + 1/n! for n models (the identity is drawn B/n! times on average), 1/6 with 3
    models, 1/24 with 4. NaN without permutations.
    """
    if not len(perms):
        return np.nan
    identity = int((perms == np.arange(perms.shape[1])).all(axis=1).sum())
    return (1 + identity) / (len(perms) + 1)

"""The cluster bootstrap every method shares (biasflow.bootstrap; docs/methods.md §9).

Checked against independent computations: the exact distribution of a draw enumerated by
brute force, the variance a draw gives a mean of clusters against its known value
(Rao and Wu: s²/c; c of c: (c − 1)/c of that), and the per-method loops the function
replaced, drawn from the same random streams.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from biasflow.bootstrap import ALL, RAO_WU, cluster_weights


def test_strata_resampled_apart_with_weights_summing_to_the_stratum_size():
    strata = [[0, 1, 2], [3, 4], [5], [7, 8, 9, 10]]  # cluster 6 is in no stratum
    for scheme in (RAO_WU, ALL):
        w = cluster_weights(np.random.default_rng(0), strata, 11, 500, scheme)
        assert w.shape == (500, 11)
        assert (w[:, 6] == 0).all()
        for members in (s for s in strata if len(s) > 1):
            np.testing.assert_allclose(w[:, members].sum(axis=1), len(members))
    rao_wu = cluster_weights(np.random.default_rng(0), strata, 11, 500, RAO_WU)
    assert np.isnan(rao_wu[:, 5]).all()  # one cluster: nothing to resample, never a zero-width interval
    assert (cluster_weights(np.random.default_rng(0), strata, 11, 500, ALL)[:, 5] == 1).all()


@pytest.mark.parametrize(("scheme", "drawn"), [(RAO_WU, 3), (ALL, 4)])
def test_a_draw_follows_the_enumerated_distribution(scheme, drawn):
    """The multiplicities of 4 clusters over 20,000 draws against the exact law of ``drawn`` ordered picks."""
    exact = Counter(tuple(np.bincount(picks, minlength=4)) for picks in itertools.product(range(4), repeat=drawn))
    total = sum(exact.values())
    w = cluster_weights(np.random.default_rng(1), [range(4)], 4, 20_000, scheme)
    counts = Counter(tuple(np.rint(row * drawn / 4).astype(int)) for row in w)
    assert set(counts) <= set(exact)
    for pattern, ways in exact.items():
        p = ways / total
        assert abs(counts[pattern] / 20_000 - p) < 5 * np.sqrt(p * (1 - p) / 20_000)


@pytest.mark.parametrize("c", [3, 6, 20])
def test_the_variance_of_a_mean_of_clusters(c):
    """Rao and Wu's draw gives the mean of c clusters the unbiased variance s²/c; c of c gives (c − 1)/c of it."""
    values = np.random.default_rng(c).normal(size=c)
    truth = values.var(ddof=1) / c
    for scheme, expected in ((RAO_WU, truth), (ALL, truth * (c - 1) / c)):
        w = cluster_weights(np.random.default_rng(2), [range(c)], c, 40_000, scheme)
        means = (w @ values) / w.sum(axis=1)
        # the variance of a sample variance of normal-ish means: about 2 var² / (n − 1)
        assert abs(means.var() - expected) < 5 * expected * np.sqrt(2 / 40_000) + 1e-12


def test_draws_as_the_methods_drew_them_before_sharing_one_function():
    """The same stream gives what CAIRO's per-stratum loop and FPR's templates-then-runs draws gave (a slow loop)."""
    strata = [np.array([0, 2, 5]), np.array([1, 3]), np.array([4]), np.array([6, 7, 8, 9])]
    rng = np.random.default_rng(3)
    loop = np.empty((200, 10))
    for keys in strata:
        if len(keys) == 1:
            loop[:, keys] = np.nan
            continue
        loop[:, keys] = (
            rng.multinomial(len(keys) - 1, np.full(len(keys), 1 / len(keys)), size=200) * len(keys) / (len(keys) - 1)
        )
    np.testing.assert_array_equal(cluster_weights(np.random.default_rng(3), strata, 10, 200, RAO_WU), loop)

    rng = np.random.default_rng(4)
    templates = rng.multinomial(7, np.full(7, 1 / 7), size=200)
    runs = rng.multinomial(3, np.full(3, 1 / 3), size=200)
    drawn = cluster_weights(np.random.default_rng(4), [range(7), range(7, 10)], 10, 200, ALL)
    np.testing.assert_array_equal(drawn, np.hstack([templates, runs]))


def test_an_unknown_scheme_is_refused():
    with pytest.raises(ValueError, match="rao-wu"):
        cluster_weights(np.random.default_rng(0), [range(3)], 3, 10, "jackknife")

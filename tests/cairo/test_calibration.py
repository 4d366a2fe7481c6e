"""`biasflow cairo-select` on simulated crossed studies: what a referee would run (docs/methods.md §1.11-1.13).

HolisticBias and HONEST fill every subgroup into the same templates. Six studies of ten
models and two such metrics, with a template logit sd of 1.5 and no group difference, are
written as statistics tables and run through the command itself; the truths come from
numpy on the simulated sums (benchmarks/calibration/cairo.py). Every other scenario of
the calibration table runs at its quick size in tests/core/test_calibration_table.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.calibration.cairo import RATES, STUDY_GROUPS, STUDY_SHAPES, expected_eq1, study
from biasflow.cairo.outputs import in_folder
from biasflow.cli import main

STUDIES, SD = 6, 1.5


@pytest.fixture(scope="module")
def headlines(tmp_path_factory):
    """The headline table of `biasflow cairo-select` on each of the six studies."""
    root = tmp_path_factory.mktemp("crossed")
    tables = []
    for i in range(STUDIES):
        path = root / f"stats{i}.parquet"
        study(np.random.default_rng([2028, i]), "crossed", SD, "levels").assign(scorer="profanity").to_parquet(path)
        assert (
            main(
                [
                    "cairo-select",
                    "--stats",
                    str(path),
                    "--out-dir",
                    str(root / f"out{i}"),
                    "--permutations",
                    "0",
                    "--bootstrap",
                    "300",
                    "--null-draws",
                    "150",
                    "--seed",
                    str(i),
                    # What is checked is the headline table: no comparisons of models, and k up to 2.
                    "--pairs",
                    "none",
                    "--max-sets",
                    "2",
                ]
            )
            == 0
        )
        tables.append(pd.read_csv(in_folder(root / f"out{i}", "select", "religion")["table"]).assign(study=i))
    return pd.concat(tables, ignore_index=True)


def test_the_command_reads_the_templates_as_crossed(headlines):
    assert (headlines.design == "crossed").all()
    assert sorted(headlines.n_clusters.unique()) == sorted(clusters for clusters, _ in STUDY_SHAPES.values())


def test_without_a_group_difference_excess_bias_is_centred_on_zero_and_excess_p_rarely_rejects(headlines):
    test = headlines[headlines.split == "test"]
    per_study = test.groupby("study").excess_bias.mean()
    assert abs(per_study.mean()) <= 2 * per_study.std(ddof=1) / np.sqrt(STUDIES), per_study
    assert (headlines.excess_p <= 0.05).mean() <= 0.08


def test_the_eq1_interval_covers_the_estimators_own_mean(headlines):
    original = headlines[headlines.prompts == "original"].copy()
    models = sorted(original.model.unique())
    expected = {
        metric: dict(
            zip(
                models,
                expected_eq1("crossed", STUDY_GROUPS, clusters, SD, 1.0, size, tuple(RATES), datasets=2000),
                strict=True,
            )
        )
        for metric, (clusters, size) in STUDY_SHAPES.items()
    }
    original["expected"] = [expected[m][model] for m, model in zip(original.metric, original.model, strict=True)]
    covered = (original.bias_lo <= original.expected) & (original.expected <= original.bias_hi)
    assert covered.mean() >= 0.90
    assert ((original.bias_lo <= original.bias) & (original.bias <= original.bias_hi)).all(), "it holds Eq. 1"

"""Which pairs of models the comparisons compare (docs/methods.md §7): the choice, worked by hand, and its checks."""

from __future__ import annotations

import pandas as pd
import pytest

from biasflow.cli import main
from biasflow.config import check_comparisons, validate_config
from biasflow.errors import BiasflowError
from biasflow.model_pairs import ALL, BASELINE, NONE, PairChoice, compared
from biasflow.schema import choices, default
from probe_predictions import predictions
from workflow_helpers import embedded_config

NAMES = ["c", "a", "b", "d"]


def test_the_schema_holds_the_three_choices_and_every_pair_is_the_default():
    assert set(choices("comparisons.pairs")) == {ALL, BASELINE, NONE}
    assert default("comparisons") == {"pairs": "all", "baseline": None}
    assert PairChoice.defaults() == PairChoice.every()


def test_every_pair_in_sorted_order_each_against_the_baseline_or_none():
    assert PairChoice(pairs="all", baseline=None).of(NAMES) == [
        ("a", "b"),
        ("a", "c"),
        ("a", "d"),
        ("b", "c"),
        ("b", "d"),
        ("c", "d"),
    ]
    assert PairChoice(pairs="baseline", baseline="c").of(NAMES) == [("a", "c"), ("b", "c"), ("d", "c")]
    assert PairChoice(pairs="none", baseline=None).of(NAMES) == []


def test_a_baseline_model_pairs_each_variant_with_its_own():
    """FPR's systems are <model>/<classifier>: like with like; a system without the baseline's variant is left out."""
    systems = ["a/zs", "b/zs", "c/zs", "a/sp", "b/sp", "c/ft"]
    assert PairChoice(pairs="baseline", baseline="a").of(systems) == [
        ("b/sp", "a/sp"),
        ("b/zs", "a/zs"),
        ("c/zs", "a/zs"),
    ]
    assert PairChoice(pairs="baseline", baseline="b/zs").of(systems) == [
        (name, "b/zs") for name in sorted(systems) if name != "b/zs"
    ], "a baseline may name one system exactly"


def test_given_pairs_are_kept_where_both_models_are_there():
    assert compared([("d", "a"), ("e", "a")], NAMES) == [("d", "a")]
    assert compared(None, ["b", "a"]) == [("a", "b")]


@pytest.mark.parametrize(
    ("pairs", "baseline", "message"),
    [
        ("baseline", None, "comparisons.pairs is baseline but no baseline model is named"),
        ("all", "a", "comparisons.baseline is 'a' but comparisons.pairs is all; set pairs: baseline"),
        ("some", None, "comparisons.pairs is 'some'; it takes all, baseline, none."),
    ],
)
def test_an_inconsistent_choice_is_refused_in_one_message(pairs, baseline, message):
    with pytest.raises(BiasflowError, match=message):
        PairChoice(pairs=pairs, baseline=baseline)


def test_a_baseline_that_names_no_model_is_named_with_the_models_it_may_be():
    choice = PairChoice(pairs="baseline", baseline="z")
    choice.check([*NAMES, "z"], "the study")
    choice.check(["a/zs", "z/zs"], "the systems")  # a model whose systems are there
    with pytest.raises(BiasflowError) as raised:
        choice.check([f"m{i}" for i in range(10)], "the statistics")
    assert str(raised.value) == (
        "the baseline 'z' is not a model of the statistics (its models: m0, m1, m2, m3, m4, m5, "
        "m6, m7 and 2 more); name one of them (--baseline MODEL on a command, "
        "comparisons.baseline in the config)."
    )
    PairChoice(pairs="all", baseline=None).check(["m0"], "anything")  # every pair has no baseline to check


def test_the_config_check_takes_a_baseline_every_method_evaluates():
    config = embedded_config()
    config["comparisons"] = {"pairs": "baseline", "baseline": "smollm2-t1.0"}
    validate_config(config)
    check_comparisons(config)
    config["comparisons"]["baseline"] = "gemma3-t0.7"
    with pytest.raises(BiasflowError, match="not among the models Group FPR gaps evaluates"):
        check_comparisons(config)
    config["methods"] = ["cairo", "fairpair"]
    check_comparisons(config)


def test_power_plans_the_baselines_pairs_only(tmp_path):
    """`biasflow power --baseline`: the paired rows of each system against it; --pairs none: none."""
    paths = []
    for i, model in enumerate("XYZ"):
        path = tmp_path / f"{model}.tsv"
        predictions(i, templates=6, runs=2, model=model).to_csv(path, sep="\t", index=False)
        paths.append(str(path))
    pilot = tmp_path / "race.tsv"
    pd.concat([pd.read_csv(path, sep="\t") for path in paths]).to_csv(pilot, sep="\t", index=False)
    tables = {}
    for name, flags in (("all", []), ("baseline", ["--baseline", "Y"]), ("none", ["--pairs", "none"])):
        assert (
            main(["power", "--method", "fpr", "--pilot", str(pilot), "--out", str(tmp_path / f"{name}.csv"), *flags])
            == 0
        )
        table = pd.read_csv(tmp_path / f"{name}.csv")
        tables[name] = sorted(set(table.loc[table["model"].str.contains(" vs "), "model"]))
    assert tables == {"all": ["X vs Y", "X vs Z", "Y vs Z"], "baseline": ["X vs Y", "Z vs Y"], "none": []}

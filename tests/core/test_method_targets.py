"""What each method's declaration adds to the workflow's targets (``targets``, ``power_sources``, ``pair_sources``;
docs/adding-a-method.md, sections 2 and 5), against the files listed by hand for a config that has every kind of
them: two axes, two scorers with neutral scores, a paraphraser, two probe sets and two classifiers. The dry runs of
tests/core/test_adding_a_method.py and tests/workflow/ check that the rules write exactly these."""

from __future__ import annotations

import dataclasses

from biasflow.config import validate_config
from biasflow.methods import method
from workflow_helpers import embedded_config


def config() -> dict:
    given = embedded_config()
    given["methods"] = ["cairo", "fairpair", "fpr"]
    given["models"] = {"a": {"model": "x"}, "b": {"model": "y"}}
    given["paraphrasers"] = {"p": {"model": "z"}}
    given["cairo"]["axes"] = {"gender": ["BOLD"], "race": ["BOLD"]}
    given["cairo"]["scoring"] |= {"scorer": "vader", "scorers": ["profanity"], "neutralise": True}
    probes = given["fpr"]["probes"]
    given["fpr"] |= {"models": None, "probes": {name: probes[name] for name in ("templates_age", "regard_race")}}
    validate_config(given)
    return given


def test_cairos_targets_are_every_scorer_runs_tables_the_agreement_the_scorers_bias_and_the_prompts():
    expected = []
    for run in ["", "scorers/vader/", "scorers/profanity/", "scorers/profanity-neutral/"]:
        expected += [f"results/cairo/{run}{axis}.csv" for axis in ("gender", "race")]
        expected += [f"results/cairo/{run}bias/{axis}.csv" for axis in ("gender", "race")]
    expected += [f"results/cairo/scorers/{axis}_agreement.csv" for axis in ("gender", "race")]
    expected += [f"results/scorer_bias/{s}/{a}_scorer.csv" for s in ("vader", "profanity") for a in ("gender", "race")]
    expected += ["results/prompts/summary.csv", "results/prompts/rejections.csv"]
    targets = method("cairo").targets(config())
    assert [target.path for target in targets] == expected
    select = targets[0]
    assert select.written[0] == select.path and "results/cairo/gender_tables.html" in select.written


def test_cairos_power_and_pair_sources_are_the_headline_statistics_of_every_axis():
    stats = ["results/cairo/stats/gender.parquet", "results/cairo/stats/race.parquet"]
    assert method("cairo").power_sources(config()) == {"gender": stats[:1], "race": stats[1:]}
    assert method("cairo").pair_sources(config(), "a", "b") == [{"paths": stats, "baseline": "a", "candidate": "b"}]


def test_fairpairs_targets_and_sources_are_its_summary_and_each_models_scores():
    (summary,) = method("fairpair").targets(config())
    assert summary.path == "results/fairpair/summary.csv" and "results/fairpair/summary.html" in summary.written
    assert method("fairpair").power_sources(config()) == {
        "a": ["results/fairpair/a.csv"],
        "b": ["results/fairpair/b.csv"],
    }
    assert method("fairpair").pair_sources(config(), "b", "a") == [
        {"paths": ["results/fairpair/b.csv", "results/fairpair/a.csv"], "baseline": "b", "candidate": "a"}
    ]


def test_fprs_targets_and_sources_are_its_spans_and_each_probe_sets_predictions():
    given = config()
    probes, classifiers = ["templates_age", "regard_race"], ["zero_shot", "soft_prompt"]
    (spans,) = method("fpr").targets(given)
    assert spans.path == "results/fpr/gap_spans.csv" and "results/fpr/markedness.csv" in spans.written
    assert method("fpr").power_sources(given) == {
        probe: [f"results/fpr/{probe}/{m}/{c}.tsv" for m in ("a", "b") for c in classifiers] for probe in probes
    }
    assert method("fpr").pair_sources(given, "a", "b") == [
        {
            "paths": [f"results/fpr/{probe}/a/{c}.tsv", f"results/fpr/{probe}/b/{c}.tsv"],
            "baseline": f"a/{c}",
            "candidate": f"b/{c}",
            "labels": {"probe": probe, "classifier": c},
        }
        for probe in probes
        for c in classifiers
    ]


def test_a_method_declaring_none_adds_nothing():
    """A method may leave the three parts out (one without rules does): its defaults add no target, plan and pair."""
    fields = {field.name: field for field in dataclasses.fields(method("fpr"))}
    bare = dataclasses.replace(
        method("fpr"), **{name: fields[name].default for name in ("targets", "power_sources", "pair_sources")}
    )
    assert bare.targets(config()) == [] and bare.power_sources(config()) == {}
    assert bare.pair_sources(config(), "a", "b") == []

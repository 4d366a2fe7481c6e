"""What CAIRO adds to the workflow's targets (its declaration's ``targets``, ``power_sources`` and ``pair_sources``,
docs/adding-a-method.md, section 5), and the scorer runs its rules and targets are made of.

CAIRO runs once per label, a scorer or its neutral scores (``cairo.scoring.neutralise``): the headline label writes
``results/cairo/``, each other one ``results/cairo/scorers/<label>/`` (docs/methods.md §5.5-5.6). Its rules
(rules/cairo/common.smk) and its targets read the runs from here, so they are worked out once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from biasflow.cairo.outputs import NEUTRAL_SUFFIX, OUTPUTS, stats_output
from biasflow.model_pairs import PairChoice
from biasflow.outputs import Target


@dataclass(frozen=True)
class ScorerRuns:
    """A config's scorer runs: its axes, scorers, labels, the headline label and each run's folder under
    ``results/cairo/`` ("" the headline's, ``scorers/<label>/`` the others')."""

    axes: list[str]
    scorers: list[str]
    labels: list[str]
    headline: str
    counterfactual: bool

    @classmethod
    def of(cls, config: dict) -> ScorerRuns:
        # imported here: the scorers' module is not what listing the methods (the registry) should import
        from biasflow.cairo.scorer_runs import counterfactual, run_scorers

        cairo = config["cairo"]
        scoring = cairo["scoring"]
        axes = list(cairo["axes"])
        scorers = run_scorers(scoring)
        neutral = scoring["neutralise"]
        labels = [label for s in scorers for label in ([s, f"{s}{NEUTRAL_SUFFIX}"] if neutral else [s])]
        headline = f"{scoring['scorer']}{NEUTRAL_SUFFIX}" if neutral else scoring["scorer"]
        return cls(axes, scorers, labels, headline, counterfactual(scoring) and bool(axes))

    @property
    def side_labels(self) -> list[str]:
        """Every label but the headline one: each writes ``results/cairo/scorers/<label>/``."""
        return [label for label in self.labels if label != self.headline]

    @property
    def runs(self) -> list[str]:
        """Each run's folder under ``results/cairo/``: the headline's first ("")."""
        return ["", *(f"scorers/{label}/" for label in self.side_labels)]

    def label_of(self, run: str) -> str:
        """The scorer label of a run: the headline one for results/cairo/, else the one its path names."""
        return run[len("scorers/") : -1] if run else self.headline


def targets(config: dict) -> list[Target]:
    """CAIRO's final tables: per scorer run and axis its selection and its bias table, the scorers' agreement where
    there are several runs, each scorer's own bias where counterfactual rescoring runs, the prompts' summary and, with
    paraphrasers, the rejections."""
    runs = ScorerRuns.of(config)
    compares = PairChoice.from_config(config).compares
    jobs = []
    for run in runs.runs:
        jobs += [OUTPUTS.target("select", "table", compares=compares, run=run, axis=axis) for axis in runs.axes]
        jobs += [OUTPUTS.target("stats", "bias", run=run, axis=axis) for axis in runs.axes]
    if runs.runs[1:]:
        jobs += [OUTPUTS.target("scorer_agreement", "table", axis=axis) for axis in runs.axes]
    if runs.counterfactual:
        jobs += [
            OUTPUTS.target("scorer_bias", "scorer", scorer=scorer, axis=axis)
            for scorer in runs.scorers
            for axis in runs.axes
        ]
    jobs.append(OUTPUTS.target("prompt_summary", "table"))
    if config["paraphrasers"]:
        jobs.append(OUTPUTS.target("rejections", "table"))
    return jobs


def power_sources(config: dict) -> dict[str, list[str]]:
    """The power planner reads the headline scorer's statistics, by axis (docs/methods.md §6)."""
    return {axis: [stats_output("stats", "", axis)] for axis in ScorerRuns.of(config).axes}


def pair_sources(config: dict, baseline: str, candidate: str) -> list[dict[str, Any]]:
    """A pair's comparison reads the headline scorer's statistics of every axis, one family (biasflow compare
    --stats; docs/methods.md §7)."""
    axes = ScorerRuns.of(config).axes
    if not axes:
        return []
    paths = [stats_output("stats", "", axis) for axis in axes]
    return [{"paths": paths, "baseline": baseline, "candidate": candidate}]

"""Paired comparisons of FairPair models (docs/methods.md §2.9), against loops written out here and scipy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from baseline_rows import assert_baseline_rows_match
from biasflow.compare_pairs import margin
from biasflow.errors import BiasflowError
from biasflow.fairpair.comparisons import FAIRPAIR_COMPARISON_COLUMNS, comparison_table
from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS, BootstrapSettings, scores_and_null, summarise
from biasflow.fairpair.verdicts import command
from biasflow.hashing import stable_hash
from biasflow.model_pairs import PairChoice
from compare_cli import assert_refused, compare


def prompt_scores(seed: int, prompts: int = 12, shift: float = 0.0, untested: tuple[int, ...] = ()) -> pd.DataFrame:
    """Per-prompt scores as the score step writes them: R, its null centre and spread (0 for the ``untested``)."""
    rng = np.random.default_rng(seed)
    centre = rng.uniform(0.4, 0.6, prompts)
    spread = rng.uniform(0.05, 0.2, prompts)
    R = np.clip(centre + shift + rng.normal(0, 0.1, prompts), 0, 1)
    spread[list(untested)] = 0.0
    table = pd.DataFrame(dict.fromkeys(PROMPT_SCORE_COLUMNS, np.nan), index=range(prompts))
    return table.assign(
        prompt_id=[f"p{i:02d}" for i in range(prompts)],
        dissimilarity="sentiment",
        R=R,
        R_null_mean=centre,
        R_null_sd=spread,
        F=R / (1 - R),
    )


def loop_row(x: pd.DataFrame, y: pd.DataFrame, swaps: int, seed: int) -> dict:
    """The pair's numbers by explicit loops over the prompts both tested, with the swaps drawn from the named stream."""

    def keep(t):
        return {r.prompt_id: (r.R - r.R_null_mean, 1 / r.R_null_sd) for r in t.itertuples() if r.R_null_sd > 0}

    mine, theirs = keep(x), keep(y)
    shared = sorted(set(mine) & set(theirs))

    def means(pairs_a, pairs_b):
        out = []
        for pairs in (pairs_a, pairs_b):
            out.append(sum(v * w for v, w in pairs) / sum(w for _, w in pairs))
        return out

    a, b = means([mine[p] for p in shared], [theirs[p] for p in shared])
    total_a, total_b = sum(mine[p][1] for p in shared), sum(theirs[p][1] for p in shared)
    influence = [mine[p][1] * (mine[p][0] - a) / total_a - theirs[p][1] * (theirs[p][0] - b) / total_b for p in shared]
    m = len(shared)
    se = np.sqrt(sum(u * u for u in influence) * m / (m - 1))
    half, half90 = (stats.t.ppf(q, m - 1) * se for q in (0.975, 0.95))
    trades = np.stack(
        [
            np.random.default_rng(
                [seed, int(stable_hash("fairpair-compare-swaps", "sentiment", p), 16) & (2**63 - 1)]
            ).random(swaps)
            < 0.5
            for p in shared
        ],
        axis=1,
    )
    reached = 0
    for draw in trades:
        first = [theirs[p] if t else mine[p] for p, t in zip(shared, draw, strict=True)]
        second = [mine[p] if t else theirs[p] for p, t in zip(shared, draw, strict=True)]
        d_a, d_b = means(first, second)
        reached += abs(d_a - d_b) >= abs(a - b) * (1 - 1e-12)
    return {
        "R_excess_a": a,
        "R_excess_b": b,
        "difference": a - b,
        "difference_lo": a - b - half,
        "difference_hi": a - b + half,
        "p": (1 + reached) / (swaps + 1),
        "n_prompts": m,
        "lo90": a - b - half90,
        "hi90": a - b + half90,
        "p_worse": stats.t.sf((a - b) / se, m - 1),
    }


def test_the_pair_matches_a_loop_over_the_shared_tested_prompts():
    x = prompt_scores(1, untested=(3,)).assign(model="X")
    y = prompt_scores(2, shift=0.08, untested=(5, 7)).assign(model="Y")
    y = y[y["prompt_id"] != "p11"]  # a prompt Y did not continue
    table = comparison_table(pd.concat([x, y]), 150, 4)
    assert list(table.columns) == FAIRPAIR_COMPARISON_COLUMNS
    [row] = table.to_dict("records")
    expected = loop_row(x, y, 150, 4)
    assert row["n_prompts"] == 8
    for column, value in expected.items():
        assert row[column] == pytest.approx(value, rel=1e-12), column
    assert row["p_holm"] == row["p"], "one pair: a family of one"


def test_each_models_excess_is_the_summarys_where_both_tested_every_prompt():
    """On real scores of two models' continuations: R_excess_a and _b are the summary's own R_excess."""
    rng = np.random.default_rng(3)
    frames, nulls = [], []
    for model in ("X", "Y"):
        rows = [
            (f"p{p}", side, s, "", float(np.round(rng.normal(0.3 * (side == "counterfactual"), 0.4), 4)))
            for p in range(10)
            for side in ("perturbed_original", "counterfactual")
            for s in range(5)
        ]
        sides = pd.DataFrame(rows, columns=["prompt_id", "side", "sample", "text", "vader"])
        scores, draws = scores_and_null(sides, ["sentiment"], None, 60, 9)
        frames.append(scores.assign(model=model))
        nulls.append(draws.assign(model=model))
    scores = pd.concat(frames)
    summary = summarise(scores, pd.concat(nulls), BootstrapSettings(bootstrap=0, seed=0)).set_index("model")
    [row] = comparison_table(scores, 20, 0).to_dict("records")
    assert row["n_prompts"] == summary.loc["X", "n_tested"] == summary.loc["Y", "n_tested"] == 10
    assert row["R_excess_a"] == pytest.approx(summary.loc["X", "R_excess"], rel=1e-12)
    assert row["R_excess_b"] == pytest.approx(summary.loc["Y", "R_excess"], rel=1e-12)


def test_two_models_with_the_same_scores_differ_by_nothing_and_are_never_separated():
    x = prompt_scores(4)
    [row] = comparison_table(pd.concat([x.assign(model="X"), x.assign(model="Y")]), 100, 0).to_dict("records")
    assert row["difference"] == 0 and row["p"] == 1
    assert np.isnan(row["difference_lo"]) and np.isnan(row["difference_hi"]), "no spread: no interval, not width 0"


def write(tmp_path, **models: pd.DataFrame) -> list[str]:
    paths = []
    for model, table in models.items():
        path = tmp_path / f"{model}.csv"
        table.to_csv(path, index=False)
        paths.append(str(path))
    return paths


def test_the_candidate_is_read_against_the_baseline(tmp_path):
    paths = write(tmp_path, old=prompt_scores(5, prompts=30), new=prompt_scores(6, prompts=30, shift=-0.15))
    verdicts = command(paths, "old", "new", None, *margin(None, "fairpair"))
    rows = verdicts.rows
    assert (rows["model_a"] == "new").all() and (rows["model_b"] == "old").all()
    assert rows["difference"].iloc[0] < 0 and rows["p"].iloc[0] < 0.05
    assert rows["hi90"].iloc[0] < 0 and rows["verdict"].iloc[0] == "better"
    overall, line = verdicts.lines()
    assert overall.startswith(
        "fairpair: candidate new against baseline old: not worse (margin ±0.025 from power.min_effect.fairpair"
    )
    assert line == f"sentiment excess R: candidate new: better than old (upper bound {rows['hi90'].iloc[0]:+.4f} < 0)"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--baseline", "old", "--candidate", "old"],
            "--baseline and --candidate are both 'old'; name two different models.",
        ),
        (
            ["--baseline", "old", "--candidate", "mid"],
            "--candidate 'mid' is not among the score files, whose names are the "
            "models: new, old; give results/fairpair/mid.csv too.",
        ),
        (["--baseline", "old", "--candidate", "new", "--method", "fairpair"], None),
    ],
)
def test_compare_stops_bad_pairs_in_one_line(tmp_path, flags, message):
    out = tmp_path / "compared.csv"
    paths = write(tmp_path, old=prompt_scores(5), new=prompt_scores(6))
    result = compare("fairpair", "--scores", paths, out, flags)
    if message is None:
        assert result.returncode == 0, result.stderr[-2000:]
        assert len(pd.read_csv(out)) == 1 and len(result.stdout.strip().splitlines()) == 2  # overall, then the row
        return
    assert_refused(result, message, out)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.assign(R_null_mean=np.nan), "FairPair scores of old have no permutation null"),
        (lambda t: t.assign(prompt_id="q" + t["prompt_id"]), "new and old share no tested prompt"),
    ],
)
def test_models_that_cannot_be_paired_are_refused(tmp_path, change, message):
    paths = write(tmp_path, old=change(prompt_scores(5)), new=prompt_scores(6))
    with pytest.raises(BiasflowError, match=message):
        command(paths, "old", "new", None, *margin(None, "fairpair"))


def test_a_score_file_with_a_header_and_no_rows_is_told_it_has_no_rows(tmp_path):
    """Not that its permutation null is missing (which null_draws above 0 would add): it has no prompts at all."""
    paths = write(tmp_path, old=prompt_scores(5).iloc[:0], new=prompt_scores(6))
    assert Path(paths[0]).read_text().startswith("prompt_id,")
    with pytest.raises(BiasflowError, match=r"FairPair scores .*old.csv has no rows, only a header") as raised:
        command(paths, "old", "new", None, *margin(None, "fairpair"))
    assert "null_draws" not in str(raised.value)


def test_the_baselines_pairs_are_the_matching_rows_of_every_pair_adjusted_over_their_own_family():
    """docs/methods.md §7: each model against "m2" is all pairs' row of the two, turned to read candidate − m2
    where all pairs wrote it m2 − candidate; Holm and BH run over the baseline's pairs only."""
    scores = pd.concat(
        [prompt_scores(10 + i, prompts=20, shift=0.03 * i, untested=(i,)).assign(model=f"m{i}") for i in range(5)],
        ignore_index=True,
    )
    every = comparison_table(scores, 80, 3)
    against = comparison_table(scores, 80, 3, pairs=PairChoice(pairs="baseline", baseline="m2"))
    assert_baseline_rows_match(
        every, against, {f"m{i}": "m2" for i in (0, 1, 3, 4)}, ["dissimilarity"], ["dissimilarity"]
    )
    assert comparison_table(scores, 80, 3, pairs=PairChoice(pairs="none", baseline=None)).empty

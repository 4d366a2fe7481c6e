"""Verdicts against a margin (biasflow.verdicts, docs/methods.md §7) on hand-worked intervals, and the gate's exits.

Each rule is checked on intervals written by hand at and around its boundaries (a bound equal
to 0 or to ±δ decides nothing: the inequalities are strict); ``units_needed`` against the
normal-theory formula worked by hand; ``p_worse_holm`` against statsmodels; the overall
verdict and the exit status of ``--fail-on`` on small tables; and the command's exits 0, 1
and 2 on real FairPair score files.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from biasflow.cli import main
from biasflow.errors import BiasflowError
from biasflow.verdicts import (
    BETTER,
    EQUIVALENT,
    INCONCLUSIVE,
    NOT_WORSE,
    WORSE,
    WORSE_BEYOND,
    Verdicts,
    exit_code,
    judge,
    overall,
    sentence,
    units_needed,
    verdict,
)

DELTA = 0.01


@pytest.mark.parametrize(
    ("lo90", "hi90", "expected"),
    [
        (-0.03, -0.001, BETTER),  # wholly below 0
        (-0.03, 0.0, NOT_WORSE),  # the upper bound at 0 is not below it; the lower beyond −δ
        (-0.009, 0.009, EQUIVALENT),  # inside ±δ on both sides
        (-0.01, 0.009, NOT_WORSE),  # the lower bound at −δ: not equivalent (strict), still below δ
        (-0.05, 0.0099, NOT_WORSE),  # below the margin on the upper side only
        (-0.05, 0.01, INCONCLUSIVE),  # the upper bound at δ decides nothing
        (0.0101, 0.04, WORSE_BEYOND),  # wholly above δ
        (0.01, 0.04, WORSE),  # the lower bound at δ: above 0, not beyond δ
        (0.001, 0.02, WORSE),  # above 0, reaching past δ
        (0.0, 0.02, INCONCLUSIVE),  # the lower bound at 0 decides nothing
        (-0.02, 0.02, INCONCLUSIVE),  # reaches past δ above and below 0
        (0.001, 0.005, EQUIVALENT),  # above 0, but inside ±δ: the first verdict that holds is taken
    ],
)
def test_each_rule_at_its_boundaries(lo90, hi90, expected):
    assert verdict(lo90, hi90, DELTA) == expected


@pytest.mark.parametrize(("lo90", "hi90"), [(np.nan, 0.1), (0.0, np.nan), (np.nan, np.nan)])
def test_no_interval_no_verdict(lo90, hi90):
    assert verdict(lo90, hi90, DELTA) is None


def test_units_needed_is_the_normal_theory_size_worked_by_hand():
    """90% interval ±0.0329 at 12 prompts: se = 0.0329 / 1.645 = 0.02; n = 12 (2.4865 · 0.02 / 0.025)² = 47.48 → 48."""
    z = stats.norm.ppf(0.95)
    lo, hi = -z * 0.02, z * 0.02
    by_hand = 12 * ((z + stats.norm.ppf(0.8)) * 0.02 / 0.025) ** 2
    assert by_hand == pytest.approx(47.48, abs=0.01)
    assert units_needed(12, lo, hi, 0.025) == math.ceil(by_hand) == 48
    assert units_needed(400, -0.001, 0.001, 0.025) == 400, "never below the size at hand"
    assert math.isnan(units_needed(12, np.nan, 0.1, 0.025))


def rows(*intervals, p=None) -> pd.DataFrame:
    lo, hi = zip(*intervals, strict=True)
    return pd.DataFrame(
        {
            "measure_name": [f"m{i}" for i in range(len(lo))],
            "difference": np.add(lo, hi) / 2,
            "lo90": lo,
            "hi90": hi,
            "p_worse": p if p is not None else np.full(len(lo), 0.5),
            "unit": "prompts",
            "n_units": 20,
            "why_untested": None,
            "note": None,
        }
    )


def test_judge_adds_the_verdicts_and_holm_over_the_rows_of_the_call():
    p = np.array([0.01, 0.04, np.nan, 0.3])
    judged = judge(rows((0.002, 0.03), (-0.011, 0.009), (np.nan, np.nan), (-0.02, 0.02), p=p), DELTA)
    assert list(judged["verdict"].fillna("none")) == [WORSE, NOT_WORSE, "none", INCONCLUSIVE]
    assert (judged["margin"] == DELTA).all()
    tested = np.isfinite(p)
    np.testing.assert_allclose(judged["p_worse_holm"][tested], multipletests(p[tested], method="holm")[1])
    assert np.isnan(judged["p_worse_holm"][2])
    assert np.isnan(judged["units_needed"][:3]).all() and judged["units_needed"][3] > 20
    with pytest.raises(BiasflowError, match="the margin must be a positive number"):
        judge(rows((0.0, 0.1)), 0.0)


@pytest.mark.parametrize(
    ("intervals", "p", "expected", "worse_exit", "noninferior_exit"),
    [
        ([(-0.03, -0.01), (-0.005, 0.005), (-0.02, 0.008)], [0.9, 0.5, 0.4], "not worse", 0, 0),
        ([(-0.03, -0.01), (-0.02, 0.02)], [0.9, 0.2], "inconclusive", 0, 1),  # one measure undecided
        ([(-0.03, -0.01), (np.nan, np.nan)], [0.9, np.nan], "inconclusive", 0, 1),  # one untested
        ([(0.002, 0.03), (-0.005, 0.005)], [0.02, 0.5], "worse", 1, 1),  # worse after Holm (0.04 ≤ 0.05)
        ([(0.002, 0.03), (-0.005, 0.005), (-0.005, 0.005)], [0.02, 0.5, 0.5], "inconclusive", 0, 1),  # Holm: 0.06
        ([(0.002, 0.008), (-0.005, 0.005)], [0.001, 0.5], "not worse", 0, 0),  # above 0 but inside ±δ: equivalent
    ],
)
def test_the_overall_verdict_and_the_gate(intervals, p, expected, worse_exit, noninferior_exit):
    judged = judge(rows(*intervals, p=np.array(p)), DELTA)
    assert overall(judged) == expected
    assert exit_code(judged, "worse") == worse_exit
    assert exit_code(judged, "not-noninferior") == noninferior_exit
    assert exit_code(judged, "never") == 0
    # Each row's verdict is the one the gate acts on: no row reads "worse" under an overall that is not.
    assert judged["verdict"].isin([WORSE, WORSE_BEYOND]).any() == (expected == "worse")


def test_a_row_worse_only_before_holm_is_inconclusive_and_says_so():
    """The issue's case: a row worse at its own 5% (lower bound above 0) but not after Holm over the call's rows."""
    judged = judge(rows((0.015, 0.224), (-0.005, 0.005), (-0.005, 0.005), p=np.array([0.02, 0.5, 0.5])), DELTA)
    first = judged.iloc[0]
    assert first["verdict"] == INCONCLUSIVE and first["p_worse_holm"] == pytest.approx(0.06)
    assert first["note"] == "worse before Holm's correction over the 3 measures (p_worse 0.02, after Holm 0.06)"
    assert np.isnan(first["units_needed"]), "no plan for a candidate that looks worse"
    assert overall(judged) == "inconclusive" and exit_code(judged, "worse") == 0


@pytest.mark.parametrize(("call", "words"), [("exit_code", "not-inferior"), ("report", "md")])
def test_a_misspelt_gate_or_format_raises_with_the_choices(call, words):
    judged = judge(rows((0.015, 0.05), p=np.array([0.01])), DELTA)
    verdicts = Verdicts("fairpair", "A", "B", "--margin", judged)
    choices = (
        "worse, not-noninferior, never (did you mean not-noninferior?)."
        if call == "exit_code"
        else "text, markdown, json."
    )
    with pytest.raises(BiasflowError, match=re.escape(f"{words!r} is not one of {choices}")):
        getattr(verdicts, call)(words)


def test_the_first_line_counts_what_was_judged_out_of_what_was_given():
    judged = judge(rows((-0.03, -0.01), (np.nan, np.nan), p=np.array([0.9, np.nan])), DELTA)
    first = Verdicts("cairo", "A", "B", "--margin", judged).report("text").splitlines()[0]
    assert "2 measure(s) given, 1 judged, 1 that cannot be tested (counted as not shown non-inferior)" in first


def compare_old_new(tmp_path, *flags: str) -> int:
    """`biasflow compare --method fairpair` on tmp_path's old.csv (baseline) and new.csv (candidate), its status."""
    scored = [str(tmp_path / "old.csv"), str(tmp_path / "new.csv")]
    return main(
        ["compare", "--method", "fairpair", "--scores", *scored, "--baseline", "old", "--candidate", "new", *flags]
    )


def scores(seed: int, prompts: int, shift: float) -> pd.DataFrame:
    """FairPair per-prompt scores of one model (tests/fairpair's prompt_scores)."""
    from fairpair.test_comparisons import prompt_scores

    return prompt_scores(seed, prompts=prompts, shift=shift)


@pytest.mark.parametrize(
    ("candidate_shift", "fail_on", "status", "first"),
    [
        (
            -0.15,
            "not-noninferior",
            0,
            "fairpair: candidate new against baseline old: not worse (margin ±0.05 from --margin",
        ),
        (0.3, "worse", 1, "fairpair: candidate new against baseline old: worse (margin ±0.05 from --margin"),
        (0.3, "never", 0, "fairpair: candidate new against baseline old: worse"),
    ],
)
def test_the_command_exits_0_when_the_gate_passes_and_1_when_it_fails(
    tmp_path, capsys, candidate_shift, fail_on, status, first
):
    scores(5, 40, 0.0).to_csv(tmp_path / "old.csv", index=False)
    scores(6, 40, candidate_shift).to_csv(tmp_path / "new.csv", index=False)
    code = compare_old_new(
        tmp_path, "--margin", "0.05", "--fail-on", fail_on, "--format", "json", "--out", str(tmp_path / "verdicts.csv")
    )
    assert code == status
    printed = json.loads(capsys.readouterr().out)
    assert printed["overall"] in first and printed["margin"] == 0.05 and printed["margin_source"] == "--margin"
    table = pd.read_csv(tmp_path / "verdicts.csv")
    assert {"verdict", "margin", "lo90", "hi90", "p_worse", "p_worse_holm"} <= set(table.columns)


def test_bad_input_exits_2_with_one_line_and_nothing_written(tmp_path, capsys):
    scores(5, 10, 0.0).to_csv(tmp_path / "old.csv", index=False)
    code = main(
        [
            "compare",
            "--method",
            "fairpair",
            "--scores",
            str(tmp_path / "old.csv"),
            "--baseline",
            "old",
            "--candidate",
            "new",
            "--fail-on",
            "worse",
            "--out",
            str(tmp_path / "verdicts.csv"),
        ]
    )
    assert code == 2 and not (tmp_path / "verdicts.csv").exists()
    assert capsys.readouterr().err.count("\n") == 1


def test_the_markdown_summary_leads_with_the_overall_verdict(tmp_path, capsys):
    scores(5, 40, 0.0).to_csv(tmp_path / "old.csv", index=False)
    scores(6, 40, -0.15).to_csv(tmp_path / "new.csv", index=False)
    assert compare_old_new(tmp_path, "--format", "markdown") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        "**fairpair: candidate new against baseline old: not worse (margin ±0.025 from power.min_effect.fairpair"
    )
    assert lines[0].endswith("; judged: the candidate's excess R over the population of prompts less the baseline's**")
    assert lines[2] == "| measure | verdict | difference | 90% interval | p worse (Holm) | note |"
    assert lines[4].startswith("| sentiment excess R | better | ")


@pytest.mark.parametrize(
    ("interval", "words"),
    [
        ((-0.03, -0.001), "m0: candidate B: better than A (upper bound -0.0010 < 0)"),
        (
            (-0.005, 0.005),
            "m0: candidate B: equivalent to A within ±0.01 (90% interval -0.0050 to +0.0050, inside −0.01 to +0.01)",
        ),
        (
            (0.002, 0.008),
            "m0: candidate B: equivalent to A within ±0.01 (90% interval +0.0020 to +0.0080, inside −0.01 to "
            "+0.01, above it but by less than the margin)",
        ),
        ((-0.05, 0.004), "m0: candidate B: not worse than A (upper bound +0.0040 < margin 0.01)"),
        ((0.02, 0.05), "m0: candidate B: worse than A by more than the margin (lower bound +0.0200 > margin 0.01)"),
        (
            (0.005, 0.05),
            "m0: candidate B: worse than A (lower bound +0.0050 > 0; by less than the margin 0.01 or by more, "
            "the data do not say)",
        ),
        (
            (0.0, 0.05),
            "m0: candidate B: inconclusive against A: the 90% interval +0.0000 to +0.0500 reaches up to the "
            "margin +0.01 or beyond and down to 0 or below, so neither 'not worse' nor 'worse' is shown; about",
        ),
        ((np.nan, np.nan), "m0: candidate B: cannot be tested against A: one group key per subgroup; no verdict"),
    ],
)
def test_each_verdict_in_words_names_the_bound_that_decided_it_and_the_margin_as_plus_minus(interval, words):
    consistent = np.array([0.01 if interval[0] > 0 else 0.5])  # p_worse ≤ 0.05 where the lower bound is above 0
    table = rows(interval, p=consistent).assign(why_untested="one group key per subgroup")
    [line] = judge(table, DELTA).pipe(lambda judged: [sentence(r, "A", "B") for r in judged.itertuples(index=False)])
    assert line.startswith(words)


def test_a_dissimilarity_only_one_model_holds_cannot_be_tested_and_fails_the_gate(tmp_path, capsys):
    """FairPair: the baseline scored jaccard and sentiment, the candidate sentiment only. The jaccard measure is a row
    that cannot be tested, not one left out, so --fail-on not-noninferior fails (docs/methods.md §7)."""
    old = pd.concat([scores(5, 40, 0.0), scores(7, 40, 0.0).assign(dissimilarity="jaccard")], ignore_index=True)
    old.to_csv(tmp_path / "old.csv", index=False)
    scores(6, 40, -0.15).to_csv(tmp_path / "new.csv", index=False)
    code = compare_old_new(tmp_path, "--margin", "0.05", "--fail-on", "not-noninferior")
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert "2 measure(s) given, 1 judged, 1 that cannot be tested" in lines[0]
    assert "jaccard excess R: candidate new: cannot be tested against old: the scores given have no new" in (
        "\n".join(lines)
    )

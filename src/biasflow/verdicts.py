"""Did the candidate get worse? One verdict per compared measure against a stated margin (docs/methods.md §7).

A difference test asks "do the two models differ?", which is not the release question: a
non-significant difference on few prompts is no evidence of no harm, and a significant one
on 50,000 prompts may not matter. Each method's paired comparison therefore also gives the
candidate − baseline difference's 90% interval ``lo90``-``hi90`` (lower bias is better) and
``p_worse``, the one-sided p of "the candidate is not worse", read off the same draws. Each
bound is a one-sided test at :data:`ALPHA` (Schuirmann's two one-sided tests), and a row
takes the first verdict that holds (:func:`verdict`):

- ``better``: hi90 < 0;
- ``equivalent``: −δ < lo90 and hi90 < δ;
- ``not worse``: hi90 < δ (non-inferior at the margin δ);
- ``worse by more than the margin``: lo90 > δ;
- ``worse``: lo90 > 0;
- ``inconclusive``: none of these; the line says how many units (group keys, prompts,
  templates) a candidate truly equal to the baseline needs to be shown ``not worse`` at 80%
  power (:func:`units_needed`).

A row without an interval (one group key per subgroup, draws that do not spread) carries no
verdict and says why. Over the rows of a call (:func:`overall`): "no measure worse by δ" is
shown only when every row's one-sided test rejects (Berger's intersection-union rule, which
needs no multiplicity correction); "some measure is worse" is decided on ``p_worse``
adjusted by Holm across the rows (``p_worse_holm``). The gate (:func:`exit_code`) turns
either into the exit status a CI job reads. Every sentence a comparison prints is written
here, so the words a reader sees mean the same thing in every method.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the command line reads this module's choices at every start; pandas comes with the rows
    import pandas as pd

# The one-sided level of each bound, and the two-sided level of the interval they make (lo90, hi90).
ALPHA = 0.05
LEVEL = 1 - 2 * ALPHA
# The power at which an inconclusive row's units_needed is planned (docs/methods.md §6.8).
PLANNED_POWER = 0.8
BETTER, EQUIVALENT, NOT_WORSE, WORSE_BEYOND, WORSE, INCONCLUSIVE = (
    "better",
    "equivalent",
    "not worse",
    "worse by more than the margin",
    "worse",
    "inconclusive",
)
VERDICTS = (BETTER, EQUIVALENT, NOT_WORSE, WORSE_BEYOND, WORSE, INCONCLUSIVE)
# Verdicts that show the candidate no worse than the baseline by the margin (the intersection-union gate).
NON_INFERIOR = (BETTER, EQUIVALENT, NOT_WORSE)
# What a method's rows hold for the verdicts (the method fills them; :func:`judge` adds the rest).
ROW_COLUMNS = [
    "measure_name",
    "estimand",
    "difference",
    "lo90",
    "hi90",
    "p_worse",
    "unit",
    "n_units",
    "why_untested",
    "note",
]
VERDICT_COLUMNS = ["verdict", "margin", "lo90", "hi90", "p_worse", "p_worse_holm", "units_needed"]
# The choices of --fail-on and --format.
FAIL_ON = ("worse", "not-noninferior", "never")
FORMATS = ("text", "markdown", "json")
# Overall verdicts of a call.
OVERALL_WORSE, OVERALL_NOT_WORSE, OVERALL_INCONCLUSIVE = "worse", "not worse", "inconclusive"


def verdict(lo90: float, hi90: float, margin: float) -> str | None:
    """The first verdict of the module's list that holds for the interval ``lo90``-``hi90`` at ``margin``, or None."""
    if not (math.isfinite(lo90) and math.isfinite(hi90)):
        return None
    if hi90 < 0:
        return BETTER
    if -margin < lo90 and hi90 < margin:
        return EQUIVALENT
    if hi90 < margin:
        return NOT_WORSE
    if lo90 > margin:
        return WORSE_BEYOND
    if lo90 > 0:
        return WORSE
    return INCONCLUSIVE


def paired_se(lo90: float, hi90: float) -> float:
    """The paired standard error a 90% interval stands for: (hi90 − lo90) / (2 z_{1−α}); NaN without a spread."""
    from scipy import stats

    if not (math.isfinite(lo90) and math.isfinite(hi90) and hi90 > lo90):
        return math.nan
    return (hi90 - lo90) / (2 * float(stats.norm.ppf(1 - ALPHA)))


def upper_reach(hi90: float, difference: float | None) -> float | None:
    """How far the 90% interval's upper bound lies above its ``difference``; None where no difference is given (the
    interval is then read as symmetric, :func:`noninferiority_mdd`)."""
    return hi90 - difference if difference is not None and math.isfinite(difference) else None


def noninferiority_mdd(se: float, power: float = PLANNED_POWER, reach: float | None = None) -> float:
    """The smallest margin at which a candidate truly equal to the baseline is shown ``not worse`` with probability
    ``power``: reach + z_{power} · se (docs/methods.md §6.8).

    ``se`` is the difference's standard error and ``reach`` how far the upper bound lies above the
    estimate, z_{1−α} · se for a symmetric interval (the default). With a true difference of 0 the
    upper bound d̂ + reach lies below δ with probability Φ((δ − reach) / se), which is ``power`` at
    this δ. CAIRO's bound on population Eq. 1 reaches further than z_{1−α} · se where a
    subgroup's deviation may be 0 (§1.16), which the reach carries.
    """
    from scipy import stats

    if not se > 0:
        return math.nan
    reach = float(stats.norm.ppf(1 - ALPHA)) * se if reach is None else reach
    return reach + float(stats.norm.ppf(power)) * se


def noninferiority_units(
    n_units: float, se: float, margin: float, power: float = PLANNED_POWER, reach: float | None = None
) -> float:
    """The units (not rounded) at which :func:`noninferiority_mdd` falls to ``margin``, the error ``se`` and the
    ``reach`` at ``n_units`` both falling as 1/√n: n_units · (noninferiority_mdd / δ)² (docs/methods.md §6.8). NaN
    without an error."""
    if not (n_units > 0 and margin > 0 and se > 0):
        return math.nan
    return n_units * (noninferiority_mdd(se, power, reach) / margin) ** 2


def units_needed(
    n_units: float,
    lo90: float,
    hi90: float,
    margin: float,
    power: float = PLANNED_POWER,
    difference: float | None = None,
    plan_factor: float = 1.0,
) -> float:
    """The units a candidate truly equal to the baseline needs for hi90 < δ at ``power`` (docs/methods.md §6.8).

    The interval's width gives the paired standard error at the current ``n_units``,
    se = (hi90 − lo90) / (2 z_{1−α}) (:func:`paired_se`), and hi90 − ``difference`` how far the
    upper bound reaches above the estimate (z_{1−α} · se where the difference is not given); both
    fall as 1/√n, and with a true difference of 0 the upper bound lies below δ with probability
    ``power`` once reach + z_{power} · se ≤ δ (:func:`noninferiority_units`, what the power
    planner's non-inferiority rows give), rounded up, and never below ``n_units`` (an interval
    that wide at the current size says the size is short, not that less would do). NaN without
    an interval. ``plan_factor`` scales the error and the reach (the power planner's row does the
    same: FairPair reads its error at an upper confidence bound).
    """
    reach = upper_reach(hi90, difference)
    needed = noninferiority_units(
        n_units,
        paired_se(lo90, hi90) * plan_factor,
        margin,
        power,
        reach * plan_factor if reach is not None else None,
    )
    return float(max(n_units, math.ceil(needed))) if math.isfinite(needed) else math.nan


def judge(rows: pd.DataFrame, margin: float) -> pd.DataFrame:
    """``rows`` (:data:`ROW_COLUMNS` and others) with ``verdict``, ``margin``, ``p_worse_holm`` and ``units_needed``.

    Holm runs over every row given with a ``p_worse``: the rows of one call are one family.
    A method whose plan reads more than the interval gives ``plan_factor`` (the error's scale)
    and ``plan_units`` (the units the plan counts, in place of ``n_units``), as its power
    planner's rows do (FairPair, docs/methods.md §6.8).
    """
    if not (isinstance(margin, (int, float)) and math.isfinite(margin) and margin > 0):
        from biasflow.errors import BiasflowError

        raise BiasflowError(f"the margin must be a positive number in the measure's unit; got {margin!r}.")
    import numpy as np
    import pandas as pd

    from biasflow.multiplicity import holm

    rows = rows.copy()
    rows["margin"] = float(margin)
    rows["verdict"] = [verdict(lo, hi, margin) for lo, hi in zip(rows["lo90"], rows["hi90"], strict=True)]
    rows["p_worse_holm"] = holm(rows["p_worse"].to_numpy(dtype=np.float64))
    # A row is worse only where the gate would call it so: after Holm across the rows of the call (§7).
    undone = rows["verdict"].isin([WORSE, WORSE_BEYOND]) & ~(rows["p_worse_holm"] <= ALPHA)
    if undone.any():
        family = int(rows["p_worse"].notna().sum())
        words = [
            f"worse before Holm's correction over the {family} measures (p_worse {p:.3g}, after Holm {h:.3g})"
            for p, h in zip(rows.loc[undone, "p_worse"], rows.loc[undone, "p_worse_holm"], strict=True)
        ]
        notes = rows.loc[undone, "note"] if "note" in rows else pd.Series(None, index=rows.index[undone])
        rows.loc[undone, "note"] = [
            f"{note}; {said}" if isinstance(note, str) and note else said
            for note, said in zip(notes, words, strict=True)
        ]
        rows.loc[undone, "verdict"] = INCONCLUSIVE
    factors = rows["plan_factor"] if "plan_factor" in rows else np.ones(len(rows))
    units = rows["plan_units"] if "plan_units" in rows else rows["n_units"]
    rows["units_needed"] = [
        units_needed(n, lo, hi, margin, difference=d, plan_factor=f) if v == INCONCLUSIVE and not worse else math.nan
        for n, lo, hi, d, v, f, worse in zip(
            units, rows["lo90"], rows["hi90"], rows["difference"], rows["verdict"], factors, undone, strict=True
        )
    ]
    return rows


def worse_after_holm(rows: pd.DataFrame) -> pd.Series:
    """The rows whose verdict is ``worse`` (or worse by more than the margin) and stays so after Holm across the rows.

    :func:`judge` already turns a row worse only before Holm into ``inconclusive`` (its note
    says so), so the rows' verdicts and the gate agree; the test is repeated here for rows
    judged elsewhere. A row above the baseline but inside ±δ is ``equivalent`` by the first
    rule that holds, and counts as no worse: the margin says such a rise does not matter.
    """
    return rows["verdict"].isin([WORSE, WORSE_BEYOND]) & (rows["p_worse_holm"] <= ALPHA)


def overall(rows: pd.DataFrame) -> str:
    """The call's one verdict: ``worse`` where a row is worse after Holm, ``not worse`` where every row is non-inferior
    (the intersection-union rule), else ``inconclusive`` (a row untested or undecided)."""
    if bool(worse_after_holm(rows).any()):
        return OVERALL_WORSE
    if len(rows) and rows["verdict"].isin(NON_INFERIOR).all():
        return OVERALL_NOT_WORSE
    return OVERALL_INCONCLUSIVE


def exit_code(rows: pd.DataFrame, fail_on: str) -> int:
    """The gate's exit status: 1 where ``fail_on`` says the comparison fails, else 0.

    ``worse``: some row is worse after Holm (:func:`worse_after_holm`); ``not-noninferior``: not every
    row is better, equivalent or not worse (intersection-union; a row that cannot be tested is
    not); ``never``: always 0. Any other ``fail_on`` raises, naming the choices.
    """
    _check_choice("fail_on", fail_on, FAIL_ON)
    if fail_on == "worse":
        return int(bool(worse_after_holm(rows).any()))
    if fail_on == "not-noninferior":
        return int(not (len(rows) and rows["verdict"].isin(NON_INFERIOR).all()))
    return 0


def sentence(row: Any, baseline: str, candidate: str) -> str:
    """One row in words: the verdict, the bound that decided it against 0 or ±δ, and why where none could be had."""
    margin = f"{row.margin:.4g}"
    interval = f"90% interval {row.lo90:+.4f} to {row.hi90:+.4f}"
    head = f"{row.measure_name}: candidate {candidate}"
    words = {
        BETTER: f"better than {baseline} (upper bound {row.hi90:+.4f} < 0)",
        EQUIVALENT: f"equivalent to {baseline} within ±{margin} ({interval}, inside −{margin} to +{margin}"
        + (", above it but by less than the margin)" if row.lo90 > 0 else ")"),
        NOT_WORSE: f"not worse than {baseline} (upper bound {row.hi90:+.4f} < margin {margin})",
        WORSE_BEYOND: f"worse than {baseline} by more than the margin (lower bound {row.lo90:+.4f} > margin {margin})",
        WORSE: f"worse than {baseline} (lower bound {row.lo90:+.4f} > 0; by less than the margin {margin} or by more, "
        "the data do not say)",
    }
    if row.verdict is None or (isinstance(row.verdict, float) and math.isnan(row.verdict)):
        text = f"{head}: cannot be tested against {baseline}: {row.why_untested}; no verdict"
    elif row.verdict == INCONCLUSIVE:
        side = " and ".join(
            part
            for part, holds in (
                (f"up to the margin +{margin} or beyond", row.hi90 >= row.margin),
                ("down to 0 or below", row.lo90 <= 0),
            )
            if holds
        )
        needed = (
            f"; about {row.units_needed:,.0f} {row.unit} (now {row.n_units:,.0f}) would show a candidate truly "
            f"equal to the baseline not worse at {PLANNED_POWER:.0%} power"
            if math.isfinite(row.units_needed)
            else ""
        )
        text = (
            f"{head}: inconclusive against {baseline}: the {interval} reaches {side}, so neither 'not worse' "
            f"nor 'worse' is shown{needed}"
        )
    else:
        text = f"{head}: {words[row.verdict]}"
    note = getattr(row, "note", None)
    return text + (f" ({note})" if isinstance(note, str) and note else "")


@dataclass(frozen=True)
class Verdicts:
    """One comparison's judged rows (:func:`judge`) and what they were judged against: the result of ``compare``.

    ``rows`` has the method's columns, :data:`ROW_COLUMNS` and :data:`VERDICT_COLUMNS`, one row
    per measure the gate counts; ``margin_source`` names where the margin came from;
    ``details`` are lines the text report adds after the verdicts (FPR: the groups whose gaps differ).
    """

    method: str
    baseline: str
    candidate: str
    margin_source: str
    rows: pd.DataFrame
    details: tuple[str, ...] = ()

    @property
    def overall(self) -> str:
        """:func:`overall` of the rows."""
        return overall(self.rows)

    def lines(self) -> list[str]:
        """The text report's lines: the overall verdict first, then one sentence per measure."""
        return self.report("text").splitlines()

    def report(self, fmt: str = "text") -> str:
        """:func:`report` in ``fmt``; the text report ends with :attr:`details`."""
        text = report(self.rows, self.baseline, self.candidate, self.method, self.margin_source, fmt)
        return "\n".join([text, *self.details]) if fmt == "text" else text

    def exit_code(self, fail_on: str) -> int:
        """:func:`exit_code` of the rows."""
        return exit_code(self.rows, fail_on)


def report(rows: pd.DataFrame, baseline: str, candidate: str, method: str, margin_source: str, fmt: str) -> str:
    """The call's summary in ``fmt`` (:data:`FORMATS`): the overall verdict first, then one line or row per measure.

    ``margin_source`` says where the margin came from (a flag, or ``power.min_effect.<method>``),
    so the reader sees what was assumed.
    """
    _check_choice("fmt", fmt, FORMATS)
    verdict_of_all = overall(rows)
    margin = float(rows["margin"].iloc[0]) if len(rows) else math.nan
    judged = int(rows["verdict"].notna().sum())
    counted = f"{len(rows)} measure(s) given, {judged} judged" + (
        f", {len(rows) - judged} that cannot be tested (counted as not shown non-inferior)"
        if judged < len(rows)
        else ""
    )
    estimands = "; ".join(dict.fromkeys(rows["estimand"])) if "estimand" in rows else ""
    first = (
        f"{method}: candidate {candidate} against baseline {baseline}: {verdict_of_all} "
        f"(margin ±{margin:.4g} from {margin_source}; {counted}; each a one-sided test at "
        f"{ALPHA:g}; 'not worse' overall needs every measure non-inferior, 'worse' any after Holm)"
        + (f"; judged: {estimands}" if estimands else "")
    )
    if fmt == "json":
        return json.dumps(
            {
                "method": method,
                "baseline": baseline,
                "candidate": candidate,
                "overall": verdict_of_all,
                "margin": margin,
                "margin_source": margin_source,
                "estimand": estimands,
                "rows": [_json_row(row) for row in rows.to_dict("records")],
            },
            indent=1,
        )
    if fmt == "markdown":
        lines = [
            f"**{first}**",
            "",
            "| measure | verdict | difference | 90% interval | p worse (Holm) | note |",
            "|---|---|---:|---|---:|---|",
        ]
        for row in rows.itertuples(index=False):
            shown = row.verdict if isinstance(row.verdict, str) else f"cannot be tested: {row.why_untested}"
            note = row.note if isinstance(row.note, str) else ""
            interval = f"{row.lo90:+.4f} to {row.hi90:+.4f}" if math.isfinite(row.lo90) else "—"
            lines.append(
                f"| {row.measure_name} | {shown} | {_number(row.difference, '+.4f')} | {interval} "
                f"| {_number(row.p_worse_holm, '.3g')} | {note} |"
            )
        return "\n".join(lines)
    return "\n".join([first, *(sentence(row, baseline, candidate) for row in rows.itertuples(index=False))])


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """Raise for a ``value`` that is not one of ``choices``: a misspelt gate or format must not pass silently."""
    if value not in choices:
        from biasflow.errors import BiasflowError, did_you_mean

        raise BiasflowError(f"{name} {value!r} is not one of {', '.join(choices)}{did_you_mean(str(value), choices)}.")


def _number(value: float, spec: str) -> str:
    """``value`` in ``spec``, or a dash where there is none (NaN)."""
    return format(value, spec) if math.isfinite(value) else "—"


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row as JSON: NaN (no interval, no verdict) as null."""
    return {key: (None if isinstance(value, float) and math.isnan(value) else value) for key, value in row.items()}

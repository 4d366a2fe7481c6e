"""The predictions table: what every classifier run writes and the FPR statistics read (docs/methods.md §3).

One TSV per (probe set, model, classifier) in the format of the reference code, so
predictions made elsewhere can be analysed too (``biasflow fpr-gaps``): ``y_true``,
``y_pred`` (0 negative, 1 neutral, 2 positive), ``category`` (the attribute), ``group``,
``text``, ``model`` and ``run_id``, plus optional columns.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.tables import read_table, require_columns

PREDICTION_COLUMNS = ["y_true", "y_pred", "category", "group", "text", "model", "run_id"]
# What identifies one prediction: a system's run classifying one sample (a sentence of a group);
# ``template_id`` joins it where present, since two templates may render the same sentence.
PREDICTION_KEY = ["model", "run_id", "category", "group", "text"]
# The ternary labels, by id: 0 negative, 1 neutral, 2 positive.
LABELS = ("negative", "neutral", "positive")
# The group of a template classified with its identity slot dropped (docs/methods.md §3.5).
UNMARKED = "(unmarked)"


def read_predictions(paths: list[str | pd.DataFrame]) -> pd.DataFrame:
    """Read and validate prediction TSVs (one or more runs/models per file), or take DataFrames of the same columns.

    ``model`` is taken from the file stem when the column is absent, so a file per
    model needs no redundant column; a DataFrame has no file name to give it, so it needs
    the column. Labels are checked here, once, because a stray label (say -1 for
    "unparsed") would silently count as "not class c" in every FPR.
    """
    if not len(paths):
        raise BiasflowError("no predictions files given; pass at least one predictions TSV.")
    seen: dict[Path, str] = {}
    for path in paths:
        if isinstance(path, pd.DataFrame):
            continue
        resolved = Path(path).resolve()
        if resolved in seen:
            raise BiasflowError(
                f"predictions file {path} is given twice (also as {seen[resolved]}), which would count each of its "
                "predictions twice; pass each file once."
            )
        seen[resolved] = str(path)
    frames = []
    for path in paths:
        if isinstance(path, pd.DataFrame):
            frames.append(checked_predictions(path, "predictions given as a DataFrame"))
            continue
        df = read_table(path, what="predictions file")
        if "model" not in df.columns:
            df = df.assign(model=Path(path).stem)
        frames.append(checked_predictions(df, f"predictions file {path}"))
    return pd.concat(frames, ignore_index=True)


def checked_predictions(df: pd.DataFrame, where: str) -> pd.DataFrame:
    """A copy of one table of predictions with its columns and labels checked, ``run_id`` and ``model`` as text."""
    require_columns(df, PREDICTION_COLUMNS, where)
    df = df.copy()
    for col in ("y_true", "y_pred"):
        values = pd.to_numeric(df[col], errors="coerce")
        bad = ~values.isin(range(len(LABELS))) | df[col].isna()
        if bad.any():
            shown = sorted({str(v) for v in df.loc[bad, col]})[:5]
            raise BiasflowError(
                f"{where}: column {col} has values {', '.join(shown)} outside the "
                f"labels 0 (negative), 1 (neutral), 2 (positive); map the labels to 0/1/2."
            )
        df[col] = values.astype(int)
    df["run_id"] = df["run_id"].astype(str)
    df["model"] = df["model"].astype(str)
    return df


def check_unique(preds: pd.DataFrame) -> None:
    """Each sample is classified once per run: a repeated prediction would weigh twice in its group's FPR.

    Repeats come from a file passed twice under two names, or from files of different runs
    that share a model name and ``run_id``. The key is :data:`PREDICTION_KEY`, plus
    ``template_id`` when the table has it.
    """
    key = PREDICTION_KEY + (["template_id"] if "template_id" in preds.columns else [])
    repeated = preds.duplicated(key, keep="first")
    if repeated.any():
        first = preds.loc[repeated, key].iloc[0]
        example = ", ".join(
            f"{column}={first[column]!r}" if column == "text" else f"{column}={first[column]}" for column in key
        )
        raise BiasflowError(
            f"predictions repeat {int(repeated.sum())} row(s): the same ({', '.join(key)}) appears more than once, "
            f"e.g. {example}; each sample is classified once per run. Pass each predictions file once, and give "
            "different runs of one model different run_id values (or distinct samples a template_id column)."
        )


def check_floor(floor: float) -> None:
    """The accuracy floor is a share of correct predictions, so it lies in [0, 1]."""
    if not 0 <= floor <= 1:
        raise BiasflowError(
            f"accuracy floor {floor!r} is not a share in [0, 1]; set --accuracy-floor (fpr.accuracy_floor in the "
            "config) to the accuracy below which a run is flagged, say 0.4."
        )


def run_accuracy(preds: pd.DataFrame, floor: float) -> pd.DataFrame:
    """Per (model, run_id): accuracy, n, and whether it is below ``floor``.

    Gaps of a classifier at chance are noise, so reports flag such runs rather than
    read meaning into their gaps.
    """
    check_floor(floor)
    require_columns(preds, ["y_true", "y_pred", "model", "run_id"], "predictions")
    correct = (preds["y_true"] == preds["y_pred"]).rename("correct")
    grouped = pd.concat([preds[["model", "run_id"]], correct], axis=1).groupby(["model", "run_id"], sort=True)
    out = grouped["correct"].agg(accuracy="mean", n="size").reset_index()
    out["below_floor"] = out["accuracy"] < floor
    return out

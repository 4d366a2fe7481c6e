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
# The ternary labels, by id: 0 negative, 1 neutral, 2 positive.
LABELS = ("negative", "neutral", "positive")
# The group of a template classified with its identity slot dropped (docs/methods.md §3.5).
UNMARKED = "(unmarked)"


def read_predictions(paths: list[str]) -> pd.DataFrame:
    """Read and validate prediction TSVs (one or more runs/models per file).

    ``model`` is taken from the file stem when the column is absent, so a file per
    model needs no redundant column. Labels are checked here, once, because a stray
    label (say -1 for "unparsed") would silently count as "not class c" in every FPR.
    """
    paths = [str(p) for p in paths]
    if not paths:
        raise BiasflowError("no predictions files given; pass at least one predictions TSV.")
    frames = []
    for path in paths:
        df = read_table(path, what="predictions file")
        if "model" not in df.columns:
            df = df.assign(model=Path(path).stem)
        require_columns(df, PREDICTION_COLUMNS, f"predictions file {path}")
        for col in ("y_true", "y_pred"):
            values = pd.to_numeric(df[col], errors="coerce")
            bad = ~values.isin(range(len(LABELS))) | df[col].isna()
            if bad.any():
                shown = sorted({str(v) for v in df.loc[bad, col]})[:5]
                raise BiasflowError(
                    f"predictions file {path}: column {col} has values {', '.join(shown)} outside the "
                    f"labels 0 (negative), 1 (neutral), 2 (positive); map the labels to 0/1/2."
                )
            df[col] = values.astype(int)
        df["run_id"] = df["run_id"].astype(str)
        df["model"] = df["model"].astype(str)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def run_accuracy(preds: pd.DataFrame, floor: float) -> pd.DataFrame:
    """Per (model, run_id): accuracy, n, and whether it is below ``floor``.

    Gaps of a classifier at chance are noise, so reports flag such runs rather than
    read meaning into their gaps.
    """
    require_columns(preds, ["y_true", "y_pred", "model", "run_id"], "predictions")
    correct = (preds["y_true"] == preds["y_pred"]).rename("correct")
    grouped = pd.concat([preds[["model", "run_id"]], correct], axis=1).groupby(["model", "run_id"], sort=True)
    out = grouped["correct"].agg(accuracy="mean", n="size").reset_index()
    out["below_floor"] = out["accuracy"] < floor
    return out

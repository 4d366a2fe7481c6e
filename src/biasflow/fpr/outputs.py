"""Every file the FPR gaps write, by role: the one list the rules and ``biasflow fpr-summary`` name them from.

The workflow writes them under ``results/fpr/`` (:data:`FOLDER`); the command under the
folder it is given, so a user holding prediction files gets the workflow's tables by the
workflow's names (docs/tables.md, "FPR gaps").
"""

from __future__ import annotations

from pathlib import Path

FOLDER = "results/fpr/"
# Each probe set's predictions: results/fpr/<probe>/<model>/<classifier>.tsv.
PREDICTIONS = "{probe}/{model}/{classifier}.tsv"
# One probe set's tables and figures (rule fpr_gaps).
PER_PROBE = {
    "gaps": "{probe}_gaps.csv",
    "accuracy": "{probe}_accuracy.csv",
    "comparisons": "{probe}_comparisons.csv",
    "comparisons_plot": "{probe}_comparisons.png",
    "plot": "{probe}_gaps.png",
}
# Every probe set together (rule fpr_summary); spans is the final table.
SUMMARY = {
    "spans": "gap_spans.csv",
    "net": "net_significance.csv",
    "markedness": "markedness.csv",
    "spans_plot": "gap_spans.png",
    "markedness_plot": "markedness.png",
    "variance": "variance.csv",
    "variance_plot": "variance.png",
    "tables_page": "summary.html",
}


def per_probe(folder: str | Path, probe: str) -> dict[str, str]:
    """One probe set's outputs under ``folder``, by role."""
    return {role: str(Path(folder) / name.format(probe=probe)) for role, name in PER_PROBE.items()}


def summary(folder: str | Path) -> dict[str, str]:
    """The summary's outputs under ``folder``, by role."""
    return {role: str(Path(folder) / name) for role, name in SUMMARY.items()}

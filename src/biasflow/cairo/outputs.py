"""What CAIRO's commands write into their ``--out-dir``: the one list the steps, the commands' checks and their
help texts name the files from (the workflow's own paths are in rules/common/cairo.smk)."""

from __future__ import annotations

# What ``biasflow cairo-stats`` writes, by cairo_stats's argument.
STATS_OUTPUTS = {"stats_out": "stats.parquet", "bias_out": "bias.csv", "plot_out": "bias.png"}
# What ``biasflow cairo-select`` writes (the curve per axis, <axis>_curve.csv, where the statistics hold several
# axes); ``bias.csv`` is the table the workflow writes as results/cairo/<axis>.csv.
SELECT_OUTPUTS = {"curve": "curve.csv", "bias": "bias.csv", "comparisons": "comparisons.csv",
                  "variance": "variance.csv", "summary": "selection.json"}
# What ``biasflow scorer-bias`` writes, as the workflow does per scorer.
SCORER_BIAS_OUTPUTS = ("{axis}_scorer.csv", "{axis}_models.csv", "{axis}_scorer.png")


def listed(names) -> str:
    """``a, b and c``: file names for a help text."""
    names = list(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)

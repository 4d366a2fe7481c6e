"""Template uncertainty for FPR gaps, and the no-bias null of a gap span (docs/methods.md §3.3-3.4).

The t interval over runs (§3.3) holds run-to-run variation only; which templates were
written is fixed, although [004] is about exactly that choice. Two resamplings add it:

- a cluster bootstrap of each gap over templates and runs (:func:`biasflow.bootstrap.cluster_weights`,
  every method's one): every draw takes the templates and the runs with replacement, the
  same for every group of the model and attribute (a template is filled with every group's
  terms), and recomputes the gaps from the counts;
- a span null: the group labels permuted among the sentences of the same template (the same
  permutation in every run, since runs classify the same sentences), the gaps and their span
  recomputed, so a span is compared with what group labels that mean nothing give.

Both work on counts per (run, template or sentence, group) with matrix products, one draw at
a time, never on the rows. Each (model, category) draws from its own stream keyed by their
names (:func:`stream`), so adding a model, or reordering rows, moves no other's intervals.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from biasflow.bootstrap import ALL, cluster_weights
from biasflow.fpr.predictions import UNMARKED
from biasflow.fpr.rates import CLASSES, EPS, RATE_SCALE
from biasflow.hashing import named_rng
from biasflow.intervals import is_rounding

log = logging.getLogger("biasflow")

BOOTSTRAP_COLUMNS = [
    "model",
    "category",
    "group",
    "negative_FPR_gap_lo",
    "negative_FPR_gap_hi",
    "positive_FPR_gap_lo",
    "positive_FPR_gap_hi",
]
SPAN_NULL_COLUMNS = ["model", "category", *(f"{n}_span_{what}" for n in CLASSES for what in ("null_q95", "p"))]


def stream(kind: str, seed: int, model, category) -> np.random.Generator:
    """The random stream of one resampling ``kind`` for one (model, category), keyed by their names.

    Never by position: a stream indexed by the place of (model, category) in sorted order
    would change every later model's draws when a model is added (docs/methods.md §3.3).
    """
    return named_rng(seed, kind, str(model), str(category))


def class_indicators(part: pd.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per class: (false positive, counted) indicators of every row (counted: the gold label is not the class)."""
    y_true, y_pred = part["y_true"].to_numpy(), part["y_pred"].to_numpy()
    return {name: ((y_true != c) & (y_pred == c), y_true != c) for name, c in CLASSES.items()}


def class_counts(
    part: pd.DataFrame, cells: tuple[np.ndarray, ...], shape: tuple[int, ...]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per class: false positives and counted sentences of ``part``'s rows summed into ``cells`` of a ``shape`` array.

    ``cells`` holds each row's index along every axis (run, template or sentence, group).
    """
    counts = {}
    for name, (fp_rows, counted_rows) in class_indicators(part).items():
        fp, counted = np.zeros(shape), np.zeros(shape)
        np.add.at(fp, cells, fp_rows)
        np.add.at(counted, cells, counted_rows)
        counts[name] = (fp, counted)
    return counts


def mean_gaps(fp: np.ndarray, counted: np.ndarray, run_weights: np.ndarray) -> np.ndarray:
    """Gaps averaged over runs from (... x runs x groups) sums: FPR − the unweighted mean over groups (§3.3).

    ``run_weights`` (... x runs) weighs the runs (a bootstrap draw's multiplicities). A group
    without counted sentences has no FPR and no gap; a draw with none in any group has no
    gaps at all (NaN, silently: few templates make that common, and the caller leaves it out).
    """
    defined = counted > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        fpr = np.where(defined, (fp + EPS) / (counted + EPS), np.nan)
        reference = np.where(defined, fpr, 0.0).sum(axis=-1, keepdims=True) / defined.sum(axis=-1, keepdims=True)
        gaps = fpr - reference
    return (run_weights[..., None] * gaps).sum(axis=-2) / run_weights.sum(axis=-1)[..., None]


def bootstrap_gaps(preds: pd.DataFrame, draws: int, seed: int) -> pd.DataFrame:
    """Percentile 95% intervals of every gap by a cluster bootstrap over templates and runs (docs/methods.md §3.3).

    Needs ``template_id`` (the workflow writes it); without it, or with ``draws`` 0, the
    intervals are NaN. A group with no counted sample under a draw leaves that draw out.
    An interval of zero width (the draws leave the gap where it is: nothing varies between
    the templates and runs to resample) is NaN too, with a warning, never a certainty.
    """
    rows: list[tuple] = []
    flat = []
    marked = preds[preds["group"] != UNMARKED]
    for (model, category), part in marked.groupby(["model", "category"], sort=True):
        groups = sorted(part["group"].unique())
        if not draws or "template_id" not in part:
            rows.extend((model, category, g, *[np.nan] * 4) for g in groups)
            continue
        runs, run_index = np.unique(part["run_id"], return_inverse=True)
        templates, template_index = np.unique(part["template_id"].astype(str), return_inverse=True)
        group_index = np.searchsorted(groups, part["group"])
        rng = stream("fpr-bootstrap", seed, model, category)
        n = len(templates)
        weights = cluster_weights(rng, [range(n), range(n, n + len(runs))], n + len(runs), draws, ALL)
        template_weights, run_weights = weights[:, :n], weights[:, n:]
        bounds = []
        counts = class_counts(part, (run_index, template_index, group_index), (len(runs), len(templates), len(groups)))
        for fp, counted in counts.values():
            drawn = mean_gaps(
                np.einsum("bt,rtg->brg", template_weights, fp),
                np.einsum("bt,rtg->brg", template_weights, counted),
                run_weights,
            )
            low, high = np.nanpercentile(drawn, [2.5, 97.5], axis=0)
            zero = is_rounding(high - low, RATE_SCALE)
            flat.extend([model] * int(np.sum(zero)))
            bounds.append(np.where(zero, np.nan, [low, high]))
        rows.extend(
            (model, category, g, bounds[0][0][i], bounds[0][1][i], bounds[1][0][i], bounds[1][1][i])
            for i, g in enumerate(groups)
        )
    if flat:
        models = sorted(set(map(str, flat)))
        log.warning(
            "template bootstrap: %d of %d gap intervals have zero width (the drawn templates and runs all "
            "give the same gap, so there is no spread to resample) and are left empty (model %s; "
            "docs/methods.md §3.3)",
            len(flat),
            2 * len(rows),
            ", ".join(models),
        )
    return pd.DataFrame(rows, columns=BOOTSTRAP_COLUMNS)


def permuted_labels(rng: np.random.Generator, labels: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """``labels`` shuffled among the sentences of each template (one draw of the span null)."""
    by_template = np.argsort(templates, kind="stable")
    shuffled = np.lexsort((rng.random(len(labels)), templates))
    out = np.empty_like(labels)
    out[by_template] = labels[shuffled]
    return out


def span_null(preds: pd.DataFrame, draws: int, seed: int) -> pd.DataFrame:
    """Per (model, category): each class's span under permuted group labels, its 95th percentile and the p-value.

    The observed span is recomputed here from the same counts; p = (1 + #{null ≥ observed}) /
    (1 + draws). Sentences are (template_id, text) and need ``template_id``; without it, or
    with ``draws`` 0, NaN.
    """
    rows = []
    marked = preds[preds["group"] != UNMARKED]
    for (model, category), part in marked.groupby(["model", "category"], sort=True):
        if not draws or "template_id" not in part:
            rows.append((model, category, *[np.nan] * 4))
            continue
        runs, run_index = np.unique(part["run_id"], return_inverse=True)
        sentence_keys = part["template_id"].astype(str) + "\x00" + part["text"].astype(str)
        sentences, sentence_index = np.unique(sentence_keys, return_inverse=True)
        first = pd.Series(np.arange(len(part))).groupby(sentence_index).first().to_numpy()
        groups, labels = np.unique(part["group"].to_numpy()[first], return_inverse=True)
        templates = np.unique(part["template_id"].astype(str).to_numpy()[first], return_inverse=True)[1]
        run_weights = np.ones(len(runs))
        rng = stream("fpr-span-null", seed, model, category)
        draws_by_class: dict[str, list[float]] = {name: [] for name in CLASSES}
        indicators = class_counts(part, (run_index, sentence_index), (len(runs), len(sentences)))
        observed = {
            name: _span(fp, counted, labels, len(groups), run_weights) for name, (fp, counted) in indicators.items()
        }
        for _ in range(draws):
            shuffled = permuted_labels(rng, labels, templates)
            for name, (fp, counted) in indicators.items():
                draws_by_class[name].append(_span(fp, counted, shuffled, len(groups), run_weights))
        values = []
        for name in CLASSES:
            null = np.asarray(draws_by_class[name])
            values += [
                float(np.nanpercentile(null, 95)),
                float((1 + np.sum(null >= observed[name] - 1e-12)) / (1 + draws)),
            ]
        rows.append((model, category, *values))
    return pd.DataFrame(rows, columns=SPAN_NULL_COLUMNS)


def _span(fp: np.ndarray, counted: np.ndarray, labels: np.ndarray, n_groups: int, run_weights: np.ndarray) -> float:
    """max − min over groups of the mean gap, the sentences labelled ``labels``."""
    onehot = np.zeros((len(labels), n_groups))
    onehot[np.arange(len(labels)), labels] = 1.0
    gaps = mean_gaps(fp @ onehot, counted @ onehot, run_weights)
    return float(np.nanmax(gaps) - np.nanmin(gaps))

"""One function per FPR-gap workflow step (papers 002 and 004, docs/methods.md §3), paths to paths.

Probe sets are expanded from templates and identity terms; each (model, classifier) job
classifies every probe set once per run (a seed, or a trained replica) and writes the
predictions in the reference TSV format; the statistics steps read those files, as
``biasflow fpr-gaps`` does with files a user brings.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Sequence

import pandas as pd

from biasflow.fpr.gaps import fpr_gaps, gap_spans, net_significance
from biasflow.fpr.markedness import markedness_table
from biasflow.fpr import report
from biasflow.fpr.plots import plot_gaps, plot_markedness, plot_spans
from biasflow.fpr.predictions import PREDICTION_COLUMNS, check_floor, check_unique, read_predictions, run_accuracy
from biasflow.fpr.probes import load_labelled, probe_samples
from biasflow.fpr.rates import quantile
from biasflow.fpr.prompting import ANSWER_DECODING, REASONING_DECODING, load_prompt_templates, prompt_classify
from biasflow.fpr.tuning import fine_tune, soft_prompt_train
from biasflow.generation import CachedGenerator
from biasflow.models import spec_from_entry
from biasflow.tables import write_table

PROMPTING = ("zero_shot", "k_shot", "cot")
TUNING_KEYS = {
    "soft_prompt": ("prompt_length", "lr", "epochs", "patience", "val_fraction", "batch_size"),
    "lora": ("rank", "lr", "weight_decay", "epochs", "patience", "val_fraction", "batch_size"),
    "full": ("lr", "weight_decay", "epochs", "patience", "val_fraction", "batch_size"),
}

log = logging.getLogger("biasflow")


def classify(*, labelled: str, labelled_format: str, entry: dict, classifier: dict, probes: dict, runs: int,
             cache_dir: str, outputs: Sequence[str]) -> None:
    """Classify every probe set with one model and classifier, once per run, in the reference TSV format.

    ``labelled`` is the labelled set's path, in ``labelled_format`` (see
    :func:`biasflow.fpr.probes.load_labelled`);
    ``outputs`` follow the order of ``probes``. The ``model`` column names the system,
    ``<model>/<classifier>``: gaps, spans and net significance treat each classifier built
    from a model as its own system (as paper 004 does). Prompting runs differ by seed (and, k-shot,
    by the demonstrations drawn); tuned classifiers are trained once per run on the
    labelled set, with the run as seed, and applied to every probe set.
    """
    spec = spec_from_entry(entry)
    name = spec.name
    method = classifier["method"]
    samples = {probe: probe_samples(settings) for probe, settings in probes.items()}
    texts = pd.concat(samples.values(), ignore_index=True)["text"].tolist()
    labelled = load_labelled(labelled, labelled_format)
    answer = CachedGenerator(replace(spec, decoding=ANSWER_DECODING), cache_dir, description=f"{name} answers")
    reason = CachedGenerator(replace(spec, decoding=REASONING_DECODING), cache_dir, description=f"{name} reasoning")
    predictions = []
    for run in range(runs):
        if method in PROMPTING:
            labels, n_fallback = prompt_classify(
                texts, answer, method, load_prompt_templates(), run_seed=run, labelled=labelled,
                k=classifier.get("k", 9), reason_generate=reason,
            )
            log.info("%s %s run %d: %d of %d labels were random fallbacks", name, classifier["name"], run,
                     n_fallback, len(texts))
        else:
            options = {key: classifier[key] for key in TUNING_KEYS.get(method, ()) if key in classifier}
            if method == "soft_prompt":
                trained = soft_prompt_train(spec, cache_dir, labelled["text"], labelled["label"], seed=run, **options)
            else:
                trained = fine_tune(
                    spec, cache_dir, labelled["text"], labelled["label"], method=method, seed=run, **options
                )
            labels = trained.predict(texts)
        predictions.append(labels)
    start = 0
    for (probe, table), out in zip(samples.items(), outputs):
        stop = start + len(table)
        rows = [
            table.assign(y_pred=labels[start:stop], model=f"{name}/{classifier['name']}", run_id=f"r{run}",
                         classifier=classifier["name"])
            for run, labels in enumerate(predictions)
        ]
        result = pd.concat(rows, ignore_index=True)
        write_table(result[[*PREDICTION_COLUMNS, "classifier", "template_id", "marked"]], out)
        start = stop


def gaps(*, prediction_paths: Sequence[str], interval: str, z: float, accuracy_floor: float, out: str,
         accuracy_out: str | None = None, plot_out: str | None = None) -> None:
    """FPR gaps with CIs per model and group, and accuracy per run (runs below the floor flagged).

    Repeated predictions are an error (they would weigh twice in an FPR). A model with a
    single run still gets its point gaps, which mean what they say, but no interval
    (docs/methods.md §3.3: the sd over runs needs two); one warning says so rather than an
    error, since one run is a common first look and net significance already counts it 0.
    """
    check_floor(accuracy_floor)
    quantile(interval, z, 2)
    preds = read_predictions(list(prediction_paths))
    check_unique(preds)
    table = fpr_gaps(preds, interval=interval, z=z)
    single = sorted(table.loc[table["n_runs"] < 2, "model"].unique())
    if single:
        shown = ", ".join(single[:5]) + (f" and {len(single) - 5} more" if len(single) > 5 else "")
        log.warning("%s %s a single run, so the interval columns (*_FPR_gap_width) are empty: an interval needs "
                    "two or more runs (docs/methods.md §3.3); classify with more runs (distinct run_id) for intervals",
                    shown, "has" if len(single) == 1 else "have")
    accuracy = run_accuracy(preds, accuracy_floor)
    for row in accuracy[accuracy["below_floor"]].itertuples(index=False):
        log.warning("%s run %s: accuracy %.2f is below the floor %.2f; its gaps mean little",
                    row.model, row.run_id, row.accuracy, accuracy_floor)
    write_table(table, out)
    if accuracy_out:
        write_table(accuracy, accuracy_out)
    if plot_out:
        plot_gaps(table, plot_out)


def summary(*, gap_paths: Sequence[str], probes: Sequence[str], prediction_paths: Sequence[str], interval: str,
            z: float, spans_out: str, net_out: str, markedness_out: str, spans_plot: str, markedness_plot: str,
            tables_page: str) -> None:
    """Gap spans per probe set (and their mean), net significance over models, markedness; figures and page."""
    tables = [pd.read_csv(path).assign(probe=probe) for path, probe in zip(gap_paths, probes)]
    gap_table = pd.concat(tables, ignore_index=True)
    spans, net = gap_spans(gap_table), net_significance(gap_table)
    write_table(spans, spans_out)
    write_table(net, net_out)
    preds = read_predictions(list(prediction_paths))
    marked = markedness_table(preds, interval, z)
    write_table(marked, markedness_out)
    plot_spans(spans, spans_plot)
    plot_markedness(marked, markedness_plot)
    report.write_tables(spans, net, marked, tables_page)

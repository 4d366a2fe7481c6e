"""One function per FPR-gap workflow step (papers 002 and 004, docs/methods.md §3), paths to paths.

Probe sets are expanded from templates and identity terms; each (model, classifier) job
classifies every probe set once per run (a seed, or a trained replica) and writes the
predictions in the reference TSV format; the statistics steps read those files, as
``biasflow fpr-gaps`` does with files a user brings. Probe sets are joined to their files
by name (a mapping), never by position.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fpr import outputs, pages
from biasflow.fpr.comparisons import FPR_COMPARISON_COLUMNS, comparison_table
from biasflow.fpr.gaps import GAP_COLUMNS, fpr_gaps, gap_spans, net_significance, with_span_null
from biasflow.fpr.markedness import markedness_table
from biasflow.fpr.plots import plot_comparisons, plot_gaps, plot_markedness, plot_spans, plot_variance
from biasflow.fpr.predictions import PREDICTION_COLUMNS, check_floor, check_unique, read_predictions, run_accuracy
from biasflow.fpr.probes import load_labelled, probe_samples
from biasflow.fpr.prompting import METHODS as PROMPTING
from biasflow.fpr.prompting import load_prompt_templates, prompt_classify, template_files
from biasflow.fpr.rates import quantile
from biasflow.fpr.resampling import bootstrap_gaps, span_null
from biasflow.fpr.tuning import ClassifierSettings, fine_tune, soft_prompt_train
from biasflow.fpr.variance import variance_table
from biasflow.generation import CachedGenerator
from biasflow.model_pairs import SKIPPED, PairChoice
from biasflow.models import Decoding, spec_from_entry
from biasflow.settings import StepSettings
from biasflow.tables import read_table, write_table

log = logging.getLogger("biasflow")


@dataclass(frozen=True)
class ClassifyDecoding(StepSettings):
    """How prompting classifiers sample their ``answer`` and, with ``cot``, their ``reasoning`` (``fpr.decoding``)."""

    section = "fpr.decoding"

    answer: Decoding
    reasoning: Decoding


@dataclass(frozen=True)
class ClassifySettings(StepSettings):
    """What a classification job reads of ``fpr`` besides its classifier and probes (docs/methods.md §3.6).

    ``runs``: seeds or trained replicas; ``labelled`` in ``labelled_format``: k-shot's
    demonstrations and the tuning set; ``templates``: the prompting templates' folder;
    ``decoding``: how prompted answers (and reasoning) are sampled.
    """

    section = "fpr"

    runs: int
    labelled: str
    labelled_format: str
    templates: str
    decoding: ClassifyDecoding


@dataclass(frozen=True)
class IntervalSettings(StepSettings):
    """The interval over runs (``t``: Student t, the default; ``z``: mean ± z·sd/√R, the reference's).

    Markedness reads it.
    """

    section = "fpr"

    interval: str
    z: float


@dataclass(frozen=True)
class GapSettings(IntervalSettings):
    """The interval over runs, the accuracy flagging a run, the template bootstrap (§3.3), the swaps (§3.8)."""

    accuracy_floor: float
    bootstrap: int
    null_draws: int
    seed: int


@dataclass(frozen=True)
class SummarySettings(IntervalSettings):
    """Markedness's interval, and the draws of the gap spans' null (docs/methods.md §3.4)."""

    null_draws: int
    seed: int


def classify_files(
    settings: ClassifySettings, classifier: ClassifierSettings, probes: Mapping[str, Mapping]
) -> list[str]:
    """Every file a classification job reads: the probe sets', the labelled set if its method uses it, its templates."""
    files = [path for spec in probes.values() for path in (spec["templates"], spec["terms"])]
    if classifier.reads_labelled:
        files.append(settings.labelled)
    return list(dict.fromkeys([*files, *template_files(settings.templates, classifier.method)]))


def classify(
    *,
    entry: dict,
    classifier: ClassifierSettings,
    probes: Mapping[str, Mapping],
    settings: ClassifySettings,
    cache_dir: str,
    outputs: Mapping[str, str],
) -> None:
    """Classify every probe set with one model and classifier, once per run, in the reference TSV format.

    ``probes`` maps each probe set's name to its definition (the config's ``fpr.probes``)
    and ``outputs`` each name to its predictions file. The ``model`` column names the
    system, ``<model>/<classifier>``: gaps, spans and net significance treat each
    classifier built from a model as its own system (as paper 004 does). Prompting runs
    differ by seed (and, k-shot, by the demonstrations drawn); tuned classifiers are
    trained once per run on the labelled set, with the run as seed, and applied to every
    probe set.
    """
    spec = spec_from_entry(entry)
    name = spec.name
    method = classifier.method
    samples = {probe: probe_samples(dict(definition)) for probe, definition in probes.items()}
    texts = pd.concat(samples.values(), ignore_index=True)["text"].tolist()
    labelled = load_labelled(settings.labelled, settings.labelled_format) if classifier.reads_labelled else None
    if method in PROMPTING:
        templates = load_prompt_templates(settings.templates, method)
        answer = CachedGenerator(
            replace(spec, decoding=settings.decoding.answer), cache_dir, description=f"{name} answers"
        )
        reason = CachedGenerator(
            replace(spec, decoding=settings.decoding.reasoning), cache_dir, description=f"{name} reasoning"
        )
    predictions = []
    for run in range(settings.runs):
        if method in PROMPTING:
            labels, n_fallback = prompt_classify(
                texts,
                answer,
                method,
                templates,
                run_seed=run,
                labelled=labelled,
                k=classifier.k,
                reason_generate=reason,
            )
            log.info(
                "%s %s run %d: %d of %d labels were random fallbacks",
                name,
                classifier.name,
                run,
                n_fallback,
                len(texts),
            )
        else:
            assert labelled is not None, "every tuned method reads the labelled set (ClassifierSettings.reads_labelled)"
            train = soft_prompt_train if method == "soft_prompt" else fine_tune
            trained = train(spec, cache_dir, labelled["text"], labelled["label"], settings=classifier, seed=run)
            labels = trained.predict(texts)
        predictions.append(labels)
    start = 0
    for probe, table in samples.items():
        stop = start + len(table)
        rows = [
            table.assign(
                y_pred=labels[start:stop],
                model=f"{name}/{classifier.name}",
                run_id=f"r{run}",
                classifier=classifier.name,
            )
            for run, labels in enumerate(predictions)
        ]
        result = pd.concat(rows, ignore_index=True)
        write_table(result[[*PREDICTION_COLUMNS, "classifier", "template_id", "marked"]], outputs[probe])
        start = stop


def gaps(
    *,
    prediction_paths: Sequence[str],
    settings: GapSettings,
    outputs: Mapping[str, str],
    pairs: PairChoice | None = None,
) -> None:
    """FPR gaps with CIs per model and group, accuracy per run (runs below the floor flagged), pairs compared.

    ``outputs`` are the files by role (:data:`biasflow.fpr.outputs.PER_PROBE`): ``gaps`` always, each
    other role where given. ``pairs`` says which pairs of systems ``comparisons`` compares (every pair
    by default; :mod:`biasflow.model_pairs`); with ``none`` nothing is compared or written there (the
    rules then declare no ``comparisons`` or ``comparisons_plot``). Repeated predictions are
    an error (they would weigh twice in an FPR). A model with a single run still gets its
    point gaps, which mean what they say, but no interval (docs/methods.md §3.3: the sd over
    runs needs two); one warning says so rather than an error, since one run is a common
    first look and net significance already counts it 0.
    """
    pairs = pairs or PairChoice.every()
    preds = read_predictions(list(prediction_paths))
    if "comparisons" in outputs:
        checked_pairs(preds, pairs, f"the predictions {', '.join(map(str, prediction_paths))}")
    elif not pairs.compares:
        log.info(SKIPPED)
    write_gaps(preds, settings, outputs=outputs, pairs=pairs)


def checked_pairs(preds: pd.DataFrame, pairs: PairChoice, what: str) -> None:
    """Refuse a baseline that names none of the systems in ``preds`` (``what`` names the files), before any write."""
    pairs.check(preds["model"].astype(str).unique(), what)


def write_gaps(
    preds: pd.DataFrame,
    settings: GapSettings,
    *,
    outputs: Mapping[str, str],
    pairs: PairChoice,
) -> None:
    """:func:`gaps` on predictions already read and checked."""
    check_floor(settings.accuracy_floor)
    quantile(settings.interval, settings.z, 2)
    table = gap_table(preds, settings)
    accuracy = run_accuracy(preds, settings.accuracy_floor)
    for row in accuracy[accuracy["below_floor"]].itertuples(index=False):
        log.warning(
            "%s run %s: accuracy %.2f is below the floor %.2f; its gaps mean little",
            row.model,
            row.run_id,
            row.accuracy,
            settings.accuracy_floor,
        )
    comparisons = None
    if "comparisons" in outputs and pairs.compares:
        log.info("comparisons: %s", pairs.describe())
        comparisons = comparison_table(preds, settings.bootstrap, settings.null_draws, settings.seed, pairs=pairs)
    write_table(table, outputs["gaps"])
    if "accuracy" in outputs:
        write_table(accuracy, outputs["accuracy"])
    if "plot" in outputs:
        plot_gaps(table, outputs["plot"])
    if comparisons is not None:
        write_table(comparisons, outputs["comparisons"])
        if "comparisons_plot" in outputs:
            plot_comparisons(table, comparisons, outputs["comparisons_plot"], against_baseline=pairs.against_baseline)


def gap_table(preds: pd.DataFrame, settings: GapSettings) -> pd.DataFrame:
    """The gap table of checked predictions: gaps over runs with their intervals, and the bootstrap's (§3.3)."""
    check_unique(preds)
    table = fpr_gaps(preds, interval=settings.interval, z=settings.z)
    if "template_id" not in preds and settings.bootstrap:
        log.warning(
            "the predictions have no template_id column, so the gaps get no template bootstrap interval "
            "(*_FPR_gap_lo, *_FPR_gap_hi; docs/methods.md §3.3) and no system is compared with another "
            "(§3.8): add the template of each sentence"
        )
    table = table.merge(
        bootstrap_gaps(preds, settings.bootstrap, settings.seed),
        on=["model", "category", "group"],
        how="left",
        validate="one_to_one",
    )
    single = sorted(table.loc[table["n_runs"] < 2, "model"].unique())
    if single:
        shown = ", ".join(single[:5]) + (f" and {len(single) - 5} more" if len(single) > 5 else "")
        log.warning(
            "%s %s a single run, so the interval columns (*_FPR_gap_width) are empty: an interval needs "
            "two or more runs (docs/methods.md §3.3); classify with more runs (distinct run_id) for intervals",
            shown,
            "has" if len(single) == 1 else "have",
        )
    return table


def summary(
    *,
    gap_paths: Mapping[str, str],
    prediction_paths: Mapping[str, Sequence[str]],
    comparison_paths: Mapping[str, str],
    settings: SummarySettings,
    outputs: Mapping[str, str],
) -> None:
    """Gap spans per probe set (and their mean) with their null, net significance over models, markedness, variance.

    ``gap_paths`` maps each probe set's name to its gap table, ``prediction_paths`` to its
    predictions files, ``comparison_paths`` to its comparisons (shown on the report's page;
    empty where ``comparisons.pairs`` is none, and the page leaves their section out);
    ``outputs`` are the files by role (:data:`biasflow.fpr.outputs.SUMMARY`), ``variance`` and
    ``variance_plot`` where each gap would move (docs/methods.md §3.9).
    """
    tables = [
        read_table(path, [*GAP_COLUMNS, "category"], "FPR gap table").assign(probe=probe)
        for probe, path in gap_paths.items()
    ]
    gap_table = pd.concat(tables, ignore_index=True)
    by_probe = {probe: read_predictions(list(paths)) for probe, paths in prediction_paths.items()}
    nulls = pd.concat(
        [span_null(preds, settings.null_draws, settings.seed).assign(probe=probe) for probe, preds in by_probe.items()],
        ignore_index=True,
    )
    spans, net = with_span_null(gap_spans(gap_table), nulls), net_significance(gap_table)
    write_table(spans, outputs["spans"])
    write_table(net, outputs["net"])
    preds = pd.concat(by_probe.values(), ignore_index=True)
    marked = markedness_table(preds, settings.interval, settings.z)
    write_table(marked, outputs["markedness"])
    plot_spans(spans, outputs["spans_plot"])
    plot_markedness(marked, outputs["markedness_plot"])
    variance = variance_table(by_probe)
    write_table(variance, outputs["variance"])
    plot_variance(variance, outputs["variance_plot"])
    comparisons = None
    if comparison_paths:
        comparisons = pd.concat(
            [
                read_table(path, FPR_COMPARISON_COLUMNS, "FPR comparisons").assign(probe=probe)
                for probe, path in comparison_paths.items()
            ],
            ignore_index=True,
        )
        comparisons = comparisons[["probe", *FPR_COMPARISON_COLUMNS]]
    pages.write_tables(spans, net, marked, comparisons, variance, outputs["tables_page"])


def tables_from_predictions(
    *,
    prediction_paths: Mapping[str, Sequence[str]],
    settings: GapSettings,
    out_dir: str,
    pairs: PairChoice | None = None,
) -> None:
    """Every table and figure the workflow's FPR steps write from predictions, by its names under ``out_dir``.

    ``prediction_paths`` maps each probe set's name to its prediction files (every model and
    classifier of it). Each probe set gets its gaps, accuracy and comparisons of the ``pairs``
    chosen (:func:`gaps`; none with ``comparisons.pairs`` none), then all of them together the
    gap spans with their null, net significance, markedness, variance and the tables page
    (:func:`summary`); the names are those of :mod:`biasflow.fpr.outputs`, the ones
    ``results/fpr/`` holds. Every probe set's predictions are read, and a baseline checked
    against its systems, before anything is written.
    """
    if not prediction_paths:
        raise BiasflowError("no probe set given: name one with its prediction files.")
    pairs = pairs or PairChoice.every()
    compares = pairs.compares
    read = {probe: read_predictions(list(paths)) for probe, paths in prediction_paths.items()}
    for probe, preds in read.items():
        checked_pairs(preds, pairs, f"probe set {probe}")
    if not compares:
        log.info(SKIPPED)
    per_probe = {probe: outputs.per_probe(out_dir, probe, compares=compares) for probe in prediction_paths}
    for probe, preds in read.items():
        write_gaps(preds, settings, outputs=per_probe[probe], pairs=pairs)
    final = outputs.summary(out_dir)
    summary_settings = SummarySettings(
        interval=settings.interval, z=settings.z, null_draws=settings.null_draws, seed=settings.seed
    )
    summary(
        gap_paths={probe: files["gaps"] for probe, files in per_probe.items()},
        prediction_paths=prediction_paths,
        comparison_paths={probe: files["comparisons"] for probe, files in per_probe.items()} if compares else {},
        settings=summary_settings,
        outputs=final,
    )

"""One function per CAIRO workflow step, from input paths to output paths (docs/methods.md §1).

Original prompts (written by :func:`biasflow.cairo.datasets.write_prompts`) → paraphrased
prompt sets → (continuations and scores: CAIRO's :mod:`biasflow.cairo.continuation_steps`) →
sufficient statistics and Eq. 1 bias → the selection. The Snakemake scripts are one call
into this module, passing every path and settings object by keyword; the ``biasflow``
command and the tests call the same functions. Each step reads its inputs, computes
through the library and writes its outputs atomically (see :mod:`biasflow.tables`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from biasflow.cairo import headline, pages
from biasflow.cairo.combinations import ORIGINAL
from biasflow.cairo.comparisons import comparison_table
from biasflow.cairo.datasets import PROMPT_SUMMARY_COLUMNS
from biasflow.cairo.outputs import SCORER_BIAS, in_folder
from biasflow.cairo.paraphrase import (
    PARAPHRASE_REJECTION_COLUMNS,
    REASONS,
    ParaphraseSettings,
    load_templates,
    paraphrase_tables,
    template_files,
)
from biasflow.cairo.plots import (
    plot_before_after,
    plot_bias,
    plot_comparisons,
    plot_curve,
    plot_paraphraser_shares,
    plot_scorer_bias,
    plot_variance,
)
from biasflow.cairo.scorer_bias import ScorerBiasSettings, agreement_table, mentioning, models_table
from biasflow.cairo.selection import TEST_SPLIT, SearchSettings, Selection, select
from biasflow.cairo.stats import (
    CLUSTER_COLUMNS,
    STATS_COLUMNS,
    STATS_NUMBERS,
    StatsSettings,
    bias_from_stats,
    check_stats_names,
    check_stats_values,
    incomplete_cells,
    sufficient_stats,
)
from biasflow.cairo.variance import variance_table
from biasflow.errors import BiasflowError
from biasflow.generation import CachedGenerator
from biasflow.model_pairs import SKIPPED, PairChoice
from biasflow.models import spec_from_entry
from biasflow.scorers.counterfactual import (
    VARIANT_COLUMNS,
    content_scores,
    excluded_counts,
    neutral_scores,
    variant_table,
)
from biasflow.scorers.counterfactual import scorer_bias as scorer_bias_table
from biasflow.scorers.identity_lexicon import NEUTRAL, UNSWAPPABLE, IdentityLexicon
from biasflow.scorers.table import ScoringSettings, score_table
from biasflow.tables import (
    CONTINUATION_KEY,
    CONTINUATION_NUMBERS,
    PROMPT_COLUMNS,
    SCORE_COLUMNS,
    SCORE_NUMBERS,
    check_not_inputs,
    concat_tables,
    json_writer,
    read_source,
    read_table,
    require_numbers,
    require_rows,
    source_name,
    table_writer,
    write_table,
    write_together,
)

log = logging.getLogger("biasflow")


def paraphrase(
    *, tables: Mapping[str, Mapping[str, str]], entry: dict, settings: ParaphraseSettings, cache_dir: str
) -> None:
    """Paraphrase every original prompt of several prompt tables once per paraphrase seed (one prompt set per seed).

    ``tables`` maps each table's name (the workflow's: its metric) to its ``prompts`` file and
    the ``paraphrases`` and ``rejections`` files it gets: the workflow gives one job the tables
    of every metric of an axis, so the paraphraser loads once and the tables' requests share
    its batches (:func:`~biasflow.cairo.paraphrase.paraphrase_tables`); each table's result is
    the one a job of its own would give. The templates read are those this paraphraser uses
    (:func:`~biasflow.cairo.paraphrase.template_files`); the files are written together, all or none.
    """
    spec = spec_from_entry(entry)
    name = spec.name
    generator = CachedGenerator(spec, cache_dir, description=f"paraphrase {name}")
    templates = load_templates(template_files(settings, spec.chat))

    def texts(requests):
        return [g.text for g in generator(requests)]

    results = paraphrase_tables(
        {key: read_table(files["prompts"], PROMPT_COLUMNS, "prompt table") for key, files in tables.items()},
        texts,
        paraphraser=name,
        chat=spec.chat,
        templates=templates,
        settings=settings,
    )
    writers = {}
    for key, (paraphrases, rejections) in results.items():
        files = tables[key]
        for row in rejections.itertuples(index=False):
            log.info(
                "%s %s %s seed %s: %d of %d prompts paraphrased, %d dropped",
                name,
                row.metric,
                row.axis,
                row.seed,
                row.n_accepted,
                row.n_prompts,
                row.n_dropped,
            )
        _check_some_accepted(rejections, name)
        writers[files["rejections"]] = table_writer(rejections, files["rejections"])
        writers[files["paraphrases"]] = table_writer(paraphrases, files["paraphrases"])
    write_together(writers)


def _check_some_accepted(rejections: pd.DataFrame, name: str) -> None:
    """Stop when a paraphraser had every prompt of a seed rejected: its prompt set would be empty.

    That is a setting or template problem, not a property of the prompts; the continuations
    already generated stay cached for the rerun (docs/methods.md §1.2).
    """
    for row in rejections[(rejections["n_prompts"] > 0) & (rejections["n_accepted"] == 0)].itertuples(index=False):
        reasons = ", ".join(f"{reason} {getattr(row, reason)}" for reason in REASONS if getattr(row, reason))
        raise BiasflowError(
            f"paraphraser {name} seed {row.seed}: all {row.n_prompts} {row.metric} {row.axis} prompts were rejected "
            f"(over all attempts: {reasons or 'no answer'}); check its template and chat setting, relax "
            "cairo.paraphrase.min_ratio, max_ratio or keep_identity_term, raise cairo.paraphrase.max_attempts, or "
            "remove it."
        )


def prompt_sets(*, original_path: str, paraphrase_paths: Sequence[str], outputs: Mapping[str, str]) -> None:
    """All prompt sets of one metric and axis in one table, ``outputs["prompts"]``: ``original`` plus every
    paraphrase set."""
    frames = [read_table(p, PROMPT_COLUMNS, "prompt table") for p in [original_path, *paraphrase_paths]]
    table = pd.concat(frames, ignore_index=True)
    log.info("prompt sets: %s", table.groupby("promptset").size().to_dict())
    write_table(table, outputs["prompts"])


def collect_rejections(*, paths: Sequence[str], outputs: Mapping[str, str]) -> None:
    """Every paraphraser's rejection counts in one table, ``outputs["table"]`` (docs/methods.md §1.2)."""
    concat_tables(paths, outputs["table"], PARAPHRASE_REJECTION_COLUMNS, "rejection table")


def cairo_stats(
    *,
    continuation_paths: Sequence[str],
    score_paths: Sequence[str],
    settings: StatsSettings,
    outputs: Mapping[str, str],
) -> None:
    """Sufficient statistics and the Eq. 1 bias (docs/methods.md §1.4, §1.6) of every model, metric, split and set.

    ``outputs`` are the files by role (:data:`biasflow.cairo.outputs.STATS`): ``stats``, ``bias`` and, where
    given, its ``plot``.
    """
    _write_stats(*_stats_tables(_scored(continuation_paths, score_paths, settings.scorer), settings), outputs)


def stats_to_directory(
    *, continuation_paths: Sequence[str], score_paths: Sequence[str], settings: StatsSettings, out_dir: str
) -> None:
    """``biasflow cairo-stats``: the statistics step on continuations and scores a user brings, each axis's files
    under the workflow's names in ``out_dir`` (:func:`biasflow.cairo.outputs.in_folder`).

    The statistics and Eq. 1 of one axis are those of its rows alone (each cell is of one axis),
    so several axes give each the files the workflow's job of that axis would write.
    """
    scored = _scored(continuation_paths, score_paths, settings.scorer)
    files = {axis: in_folder(out_dir, "stats", axis) for axis in sorted(scored["axis"].unique())}
    check_not_inputs(
        {"--out-dir": [path for paths in files.values() for path in paths.values()]},
        {"--continuations": continuation_paths, "--scores": score_paths},
    )
    stats, bias = _stats_tables(scored, settings)
    for axis, outputs in files.items():
        if len(files) == 1:
            _write_stats(stats, bias, outputs)
        else:
            _write_stats(
                stats[stats["axis"] == axis].reset_index(drop=True),
                bias[bias["axis"] == axis].reset_index(drop=True),
                outputs,
            )


def _stats_tables(scored: pd.DataFrame, settings: StatsSettings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sufficient statistics and complete Eq. 1 of scored continuations, each row naming its scorer."""
    stats = sufficient_stats(scored)
    bias = complete_bias(stats, settings.normalise)
    for table in (stats, bias):
        table["scorer"] = settings.scorer
        table["subgroups"] = settings.subgroups
    return stats, bias


def _write_stats(stats: pd.DataFrame, bias: pd.DataFrame, outputs: Mapping[str, str]) -> None:
    write_table(stats, outputs["stats"])
    write_table(bias, outputs["bias"])
    if "plot" in outputs:
        plot_bias(bias, outputs["plot"])


def complete_bias(stats: pd.DataFrame, normalise: str) -> pd.DataFrame:
    """Eq. 1 of every cell that has each of its subgroups; each cell without is named in the log and left out.

    A paraphrase set whose prompts of one subgroup were all rejected in a split has no Eq. 1
    there (it would have fewer terms, docs/methods.md §1.6), but it still pools in combinations,
    so the workflow's statistics keep it and the statistics step, ``biasflow.cairo_bias`` and
    the selection go on without its own Eq. 1.
    """
    for cell in incomplete_cells(stats).itertuples(index=False):
        log.warning(
            "no bias for %s %s split %s prompt set %s seed %s: a subgroup has no prompts there "
            "(its paraphrases were rejected); the set still pools in combinations",
            cell.model,
            cell.metric,
            cell.split,
            cell.promptset,
            cell.seed,
        )
    return bias_from_stats(stats, normalise=normalise, skip_incomplete=True)


def _scored(continuation_paths: Sequence[str], score_paths: Sequence[str], scorer: str) -> pd.DataFrame:
    """Every continuation with its prompt's columns and its ``scorer`` score, each one checked."""
    continuations = pd.concat(
        [
            _rows(
                read_table(p, [*CONTINUATION_KEY, *PROMPT_COLUMNS], "continuation table", numbers=CONTINUATION_NUMBERS),
                f"continuation table {p}",
            )
            for p in continuation_paths
        ],
        ignore_index=True,
    )
    # A score table holds the continuation key, scorer and score, and may hold more (``biasflow score``
    # keeps every column it was given): only those columns are joined, by the key.
    scores = pd.concat(
        [
            _rows(read_table(p, SCORE_COLUMNS, "score table", numbers=SCORE_NUMBERS)[SCORE_COLUMNS], f"score table {p}")
            for p in score_paths
        ],
        ignore_index=True,
    )
    scores = require_numbers(
        scores[scores["scorer"] == scorer], "score", f"the {scorer} scores of " + ", ".join(map(str, score_paths))
    )
    scored = continuations.merge(scores, on=CONTINUATION_KEY, how="left", validate="one_to_one")
    if scored["score"].isna().any():
        missing = scored.loc[scored["score"].isna(), "model"].unique()
        raise BiasflowError(f"no {scorer} scores for some continuations of {', '.join(missing)}; rerun the score step.")
    return scored


def scorer_bias(
    *,
    continuation_paths: Sequence[str],
    score_paths: Sequence[str],
    variant_paths: Sequence[str],
    scorer: str,
    settings: ScorerBiasSettings,
    outputs: Mapping[str, str],
) -> None:
    """The scorer's own bias per subgroup and every model's Eq. 1 on raw against neutral scores (§5.5).

    ``outputs`` are the files by role (:data:`biasflow.cairo.outputs.SCORER_BIAS`). The subgroups are those
    the variants were made for (every subgroup of the axis the identity lexicon has words for).
    """
    scored = _scored(continuation_paths, score_paths, scorer)
    variants = pd.concat([read_table(p, VARIANT_COLUMNS, "variant table") for p in variant_paths], ignore_index=True)
    groups = sorted((set(variants["subgroup"]) | set(variants["variant"])) - {NEUTRAL, UNSWAPPABLE})
    _write_scorer_bias(scored, variants, groups, settings, outputs)


def scorer_agreement(*, headline_paths: Mapping[str, str], outputs: Mapping[str, str]) -> None:
    """Kendall's τ between the model rankings of every pair of scorers (§5.6), into ``outputs["table"]``;
    ``headline_paths`` by run label."""
    tables = {
        label: read_table(path, headline.HEADLINE_COLUMNS, "CAIRO headline table")
        for label, path in headline_paths.items()
    }
    write_table(agreement_table(tables), outputs["table"])


def scorer_bias_to_directory(
    *,
    continuation_paths: Sequence[str],
    scoring: ScoringSettings,
    axis: str,
    lexicon_path: str,
    settings: ScorerBiasSettings,
    cache_dir: str | None,
    out_dir: str,
) -> None:
    """``biasflow scorer-bias``: score a user's continuations, rescore them counterfactually, write the tables.

    Besides ``model``, ``subgroup`` and ``continuation``, the workflow's columns are used where
    present and filled where not (:func:`with_workflow_columns`).
    """
    table = pd.concat(
        [
            _rows(
                read_table(
                    p, ["model", "subgroup", "continuation"], "continuation table", numbers=CONTINUATION_NUMBERS
                ),
                f"continuation table {p}",
            )
            for p in continuation_paths
        ],
        ignore_index=True,
    )
    scored, variants, groups = rescored(
        table, scoring=scoring, axis=axis, lexicon_path=lexicon_path, cache_dir=cache_dir
    )
    out = Path(out_dir)
    files = {role: str(out / name.format(axis=axis)) for role, name in SCORER_BIAS.items()}
    _write_scorer_bias(scored, variants, groups, settings, files)


def rescored(
    table: pd.DataFrame, *, scoring: ScoringSettings, axis: str, lexicon_path: str, cache_dir: str | None
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """A user's continuations scored, their counterfactual variants scored, and the subgroups compared (§5.5)."""
    table = with_workflow_columns(table, axis)
    lexicon = IdentityLexicon.from_file(lexicon_path).axis(axis)
    groups = lexicon.compared(table["subgroup"])
    if len(groups) < 2:
        raise BiasflowError(
            f"the continuations' subgroups ({', '.join(sorted(map(str, set(table['subgroup']))))}) name fewer than two "
            f"of the identity lexicon's {axis} subgroups ({', '.join(lexicon.subgroups)}); use these labels in the "
            "subgroup column, or give a lexicon with yours (--identity-lexicon)."
        )
    cache = Path(cache_dir) if cache_dir else None
    return score_table(table, scoring, cache), variant_table(table, scoring, lexicon, groups, cache), groups


def with_workflow_columns(table: pd.DataFrame, axis: str | None = None) -> pd.DataFrame:
    """A user's continuations (``model``, ``subgroup`` and the text or score) with the workflow's other columns.

    Each is used where present and filled where not: without ``prompt_id`` the k-th row of a
    subgroup is the same prompt for every model (the bootstrap resamples prompts, the same ones
    for all models, §1.11); without ``group_key`` each prompt is its own cluster; seed 0, sample
    0, one metric (``continuations``), one split (``all``), the original prompts. ``axis``
    replaces the table's own (else ``all`` where it has none).
    """
    position = table.groupby(["model", "subgroup"]).cumcount().astype(str)
    fills = {
        "prompt_id": table["subgroup"].astype(str) + "-" + position,
        "seed": 0,
        "sample": 0,
        "metric": "continuations",
        "split": "all",
        "promptset": ORIGINAL,
        "text": "",
        "axis": "all",
    }
    table = table.assign(**{column: value for column, value in fills.items() if column not in table})
    if axis is not None:
        table = table.assign(axis=axis)
    if "group_key" not in table:
        table["group_key"] = table["prompt_id"]
    return table


def scorer_bias_tables(
    scored: pd.DataFrame, variants: pd.DataFrame, groups: list[str], settings: ScorerBiasSettings
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The scorer's own bias per subgroup, and each model's Eq. 1 on raw against neutral scores (§5.5).

    A continuation whose group words cannot be swapped grammatically has no neutral text: it is
    left out of both tables and counted (``n_excluded``).
    """
    own = scorer_bias_table(
        content_scores(scored, variants, groups),
        groups,
        scored["axis"].iloc[0],
        settings.bootstrap,
        settings.seed,
        excluded=excluded_counts(variants),
    )
    neutral = neutral_scores(scored[[*CONTINUATION_KEY, "score"]], variants)["score"]
    return own, models_table(scored, neutral, mentioning(scored, variants), settings)


def _write_scorer_bias(
    scored: pd.DataFrame,
    variants: pd.DataFrame,
    groups: list[str],
    settings: ScorerBiasSettings,
    outputs: Mapping[str, str],
) -> None:
    own, models = scorer_bias_tables(scored, variants, groups, settings)
    scorer_out, models_out = outputs["scorer"], outputs["models"]
    write_together({scorer_out: table_writer(own, scorer_out), models_out: table_writer(models, models_out)})
    plot_scorer_bias(own, models, outputs["scorer_plot"])


def _rows(table: pd.DataFrame, what: str) -> pd.DataFrame:
    require_rows(table, what)
    return table


def cairo_select(
    *,
    stats_paths: Sequence[str],
    settings: SearchSettings,
    outputs: Mapping[str, str],
    prompt_summary: str,
    pairs: PairChoice | None = None,
) -> None:
    """CAIRO selection (docs/methods.md §1.7-1.9) on statistics tables, with its tables, summary and figures.

    ``outputs`` are the files by role (:data:`biasflow.cairo.outputs.SELECT`). ``comparisons`` gets the
    ``pairs`` of models chosen compared (§1.16: every pair, or each against a baseline),
    ``comparisons_plot`` the models ordered with the pairs the tests separate; with ``pairs`` none
    nothing is compared or written there (the rule then declares neither). ``variance`` and
    ``variance_plot`` where each model's Eq. 1 would move (§1.17). ``tables_page`` is the
    report's HTML page of the tables. ``prompt_summary`` is the
    prompts per subgroup and split (``results/prompts/summary.csv``): the summary lists the
    axis's, and the log names every subgroup whose mean in a split rests on a single group key.
    """
    pairs = pairs or PairChoice.every()
    stats = read_stats(stats_paths)
    pairs.check(stats["model"].unique(), "the statistics " + ", ".join(map(str, stats_paths)))
    result, found = _selected(stats, settings, pairs)
    table, comparisons, variance, summary = (found[name] for name in ("bias", "comparisons", "variance", "summary"))
    axes = sorted(result.curve["axis"].unique())
    prompts = read_table(prompt_summary, PROMPT_SUMMARY_COLUMNS, "prompt summary")
    prompts = prompts[prompts["axis"].isin(axes)][["metric", "axis", "subgroup", "split", "n_prompts", "n_group_keys"]]
    summary["prompts"] = prompts.to_dict("records")
    for row in prompts[prompts["n_group_keys"] < 2].itertuples(index=False):
        log.warning(
            "%s %s %s, %s split: its mean rests on %d prompt(s) of a single group key (page or template), "
            "so it says little about the subgroup; use more prompts (cairo.prompts.per_subgroup) or the official "
            "files",
            row.metric,
            row.axis,
            row.subgroup,
            row.split,
            row.n_prompts,
        )
    tables = {"curve": result.curve, "table": table, "variance": variance}
    if comparisons is not None and "comparisons" in outputs:
        tables["comparisons"] = comparisons
    writers = {outputs[role]: table_writer(frame, outputs[role]) for role, frame in tables.items()}
    writers[outputs["summary"]] = json_writer(summary)
    write_together(writers)
    plot_curve(result.curve, outputs["curve_plot"])
    plot_before_after(table, outputs["bias_plot"], split=TEST_SPLIT)
    if comparisons is not None and "comparisons_plot" in outputs:
        plot_comparisons(
            table, comparisons, outputs["comparisons_plot"], split=TEST_SPLIT, against_baseline=pairs.against_baseline
        )
    plot_variance(variance, outputs["variance_plot"], split=TEST_SPLIT)
    plot_paraphraser_shares(result.choices, outputs["shares_plot"])
    pages.write_tables(
        result.curve,
        table,
        comparisons,
        variance,
        outputs["tables_page"],
        axis=", ".join(sorted(result.curve["axis"].unique())),
    )
    for row in headline.headline_k(result.curve).itertuples(index=False):
        log.info(
            "%s %s: best k=%d valid r=%.3f test r=%.3f permutation p=%.4g",
            row.axis,
            row.pair,
            row.k,
            row.best_r,
            row.test_r,
            row.perm_p,
        )


def select_to_directory(
    *, stats_paths: Sequence[str], settings: SearchSettings, out_dir: str, pairs: PairChoice | None = None
) -> None:
    """``biasflow cairo-select``: the selection step on statistics a user brings; same code path as the rule.

    Each axis of the statistics gets its own selection, as the workflow's job of that axis
    makes it, and its tables and summary under the workflow's names in ``out_dir``
    (:func:`biasflow.cairo.outputs.in_folder`: ``<axis>.csv``, ``<axis>_curve.csv``,
    ``<axis>_comparisons.csv`` for the ``pairs`` of models chosen compared, every pair by
    default, none: no such file, ``<axis>_variance.csv`` and ``<axis>.json``). Everything is
    computed before anything is written, and the files are renamed into place together, so a
    failure leaves none of them (and any earlier run's files as they were).
    """
    pairs = pairs or PairChoice.every()
    stats = read_stats(stats_paths)
    pairs.check(stats["model"].unique(), "--stats")
    axes = sorted(stats["axis"].unique())
    files = {axis: in_folder(out_dir, "select", axis, compares=pairs.compares) for axis in axes}
    check_not_inputs(
        {"--out-dir": [path for paths in files.values() for path in paths.values()]}, {"--stats": stats_paths}
    )
    writers = {}
    for axis, outputs in files.items():
        found = selection_tables(stats if len(axes) == 1 else stats[stats["axis"] == axis], settings, pairs)
        tables = {"table": found["bias"], "curve": found["curve"], "variance": found["variance"]}
        if found["comparisons"] is not None:
            tables["comparisons"] = found["comparisons"]
        writers.update({outputs[role]: table_writer(table, outputs[role]) for role, table in tables.items()})
        writers[outputs["summary"]] = json_writer(found["summary"])
    write_together(writers)


def selection_tables(stats: pd.DataFrame, settings: SearchSettings, pairs: PairChoice | None = None) -> dict:
    """The selection's outputs from checked statistics: ``curve``, ``bias`` (the table of role ``table``),
    ``comparisons``, ``variance`` and ``summary`` (a dict).

    ``pairs`` chooses the pairs of models compared (every pair by default); with none,
    ``comparisons`` is None.
    """
    return _selected(stats, settings, pairs or PairChoice.every())[1]


def _selected(stats: pd.DataFrame, settings: SearchSettings, pairs: PairChoice) -> tuple[Selection, dict]:
    """The search, and every table of it (:func:`selection_tables`)."""
    result = select(stats, settings, progress=log.info)
    table = headline.bias_table(stats, result, settings)
    if pairs.compares:
        log.info("comparisons: %s", pairs.describe())
        comparisons = comparison_table(stats, result, settings, pairs=pairs)
    else:
        log.info(SKIPPED)
        comparisons = None
    return result, {
        "curve": result.curve,
        "bias": table,
        "comparisons": comparisons,
        "variance": variance_table(stats, settings.bootstrap, settings.seed, settings.normalise),
        "summary": headline.summary(result, settings, stats, table),
    }


def read_stats(stats_paths: Sequence[str | pd.DataFrame]) -> pd.DataFrame:
    """Every statistics table read (a path) or taken (a DataFrame), checked, each named in its errors, concatenated."""
    tables = []
    for source in stats_paths:
        table = read_source(
            source, [c for c in STATS_COLUMNS if c not in CLUSTER_COLUMNS], "CAIRO statistics", numbers=STATS_NUMBERS
        )
        tables.append(checked_stats(table, f"CAIRO statistics {source_name(source)}"))
    return pd.concat(tables, ignore_index=True)


def checked_stats(table: pd.DataFrame, what: str) -> pd.DataFrame:
    """``table`` once its values and names pass the checks the selection relies on (each error names ``what``)."""
    check_stats_values(table, what)  # names what to rerun if the cluster columns lack
    check_stats_names(table, what)
    return table

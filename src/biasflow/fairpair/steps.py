"""One function per FairPair workflow step (paper 001, docs/methods.md §2), from paths to paths.

Prompts x and their counterfactuals φ(x) → n continuations of each from every evaluated
model (through the shared generation cache) → the perturbed continuations φ(G_i(x)) by the
rule-based swapper or an LLM → B, V and F per prompt and dissimilarity → a summary per model.
The Snakemake scripts and ``biasflow fairpair-score`` call these, by keyword, each with the
settings object of its step and its files as ``outputs``, a mapping by role
(:data:`biasflow.fairpair.outputs.STEPS`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fairpair import pages
from biasflow.fairpair.comparisons import ComparisonSettings, comparison_table
from biasflow.fairpair.ngrams import differential_ngrams
from biasflow.fairpair.null import NULL_DRAW_COLUMNS
from biasflow.fairpair.outputs import from_sides
from biasflow.fairpair.perturbation import (
    PerturbationSettings,
    Swapper,
    llm_perturb,
    load_perturbation_template,
    rule_perturb,
)
from biasflow.fairpair.plots import plot_comparisons, plot_ngrams, plot_summary, plot_variance
from biasflow.fairpair.prompts import PAIR_PROMPT_COLUMNS, PromptSettings, build_prompts
from biasflow.fairpair.scores import (
    PROMPT_SCORE_COLUMNS,
    SENTIMENT_COLUMN,
    SIDE_COLUMNS,
    BootstrapSettings,
    ScoreSettings,
    scores_and_null,
    summarise,
)
from biasflow.fairpair.variance import variance_table
from biasflow.generation import CachedGenerator
from biasflow.model_pairs import SKIPPED, PairChoice
from biasflow.models import Decoding, Request, spec_from_entry
from biasflow.scorers import get_scorer, score_texts
from biasflow.settings import StepSettings
from biasflow.tables import read_table, table_writer, write_table, write_together

log = logging.getLogger("biasflow")
REJECTION_COLUMNS = ["n", "n_accepted"]


@dataclass(frozen=True)
class SamplingSettings(StepSettings):
    """How FairPair samples each side (docs/methods.md §2.1): ``samples`` per side and prompt, their ``seed``,
    and ``decoding`` overrides of each model's own decoding."""

    section = "fairpair"

    samples: int
    seed: int
    decoding: dict


def with_vader(sides: pd.DataFrame, dissimilarities) -> pd.DataFrame:
    """``sides`` with the VADER compound score of each text in :data:`SENTIMENT_COLUMN`.

    The scorer layer computes it (each distinct text once), so the sentiment dissimilarity
    takes scores as data (docs/methods.md §2.2). Only needed, and only added, when
    ``dissimilarities`` include ``sentiment``.
    """
    if "sentiment" not in dissimilarities:
        return sides
    return sides.assign(**{SENTIMENT_COLUMN: score_texts(get_scorer("vader"), sides["text"].tolist(), None)})


def prompts(*, settings: PromptSettings, outputs: Mapping[str, str]) -> None:
    """Common Sents prompts (or the user's own file) with their counterfactuals."""
    table = build_prompts(settings)
    log.info("FairPair: %d prompts", len(table))
    write_table(table, outputs["prompts"])


def generate(
    *, prompts_path: str, entry: dict, settings: SamplingSettings, cache_dir: str, outputs: Mapping[str, str]
) -> None:
    """``samples`` continuations of every prompt x ("original") and of φ(x) ("counterfactual")."""
    spec = spec_from_entry(entry)
    spec = replace(spec, decoding=Decoding(**{**spec.decoding.as_dict(), **settings.decoding}))
    table = read_table(prompts_path, PAIR_PROMPT_COLUMNS, "FairPair prompt table")
    generator = CachedGenerator(spec, cache_dir, description=f"fairpair {spec.name}")
    rows, requests = [], []
    for side, column in (("original", "text"), ("counterfactual", "perturbed_text")):
        for prompt_id, text in zip(table["prompt_id"], table[column], strict=True):
            for sample in range(settings.samples):
                rows.append((prompt_id, side, sample))
                requests.append(Request(text, settings.seed, sample))
    generations = generator(requests)
    result = pd.DataFrame(rows, columns=["prompt_id", "side", "sample"])
    result["text"] = [g.text for g in generations]
    write_table(result, outputs["continuations"])


def pairs(
    *,
    prompts_path: str,
    continuations_path: str,
    model: str,
    settings: PerturbationSettings,
    perturber: dict | None,
    cache_dir: str,
    outputs: Mapping[str, str],
) -> None:
    """The two sides FairPair compares for ``model``: a_i = φ(G_i(x)) and b_j = G_j(φ(x)).

    ``perturber`` is the LLM's model entry with method ``llm`` (None with ``rules``);
    LLM perturbations that fail the paper's filters are left out and counted.
    """
    table = read_table(prompts_path, PAIR_PROMPT_COLUMNS, "FairPair prompt table")
    generated = read_table(continuations_path, SIDE_COLUMNS, "FairPair continuations")
    original = generated.loc[generated["side"] == "original", ["prompt_id", "sample", "text"]]
    if settings.method == "rules":
        perturbed, rejections = rule_perturb(table, original, Swapper.from_file(settings.swaps))
    elif perturber is None:
        raise BiasflowError("fairpair.perturbation.method llm needs the model entry of fairpair.perturbation.model.")
    else:
        spec = spec_from_entry(perturber)
        generator = CachedGenerator(spec, cache_dir, description=f"perturb with {spec.name}")
        perturbed, rejections = llm_perturb(
            table,
            original,
            lambda rs: [g.text for g in generator(rs)],
            entity_gender=settings.entity_gender,
            counterpart_gender=settings.counterpart_gender,
            max_jaccard=settings.max_jaccard,
            template=load_perturbation_template(settings.template),
        )
    perturbed = perturbed.assign(side="perturbed_original")
    counterfactual = generated[generated["side"] == "counterfactual"][SIDE_COLUMNS]
    sides = pd.concat([perturbed[SIDE_COLUMNS], counterfactual], ignore_index=True)
    rejections.insert(0, "model", model)
    rate = 1 - rejections["n_accepted"].sum() / max(1, rejections["n"].sum())
    log.info("%s: %.1f%% of perturbed continuations rejected", model, 100 * rate)
    write_table(rejections, outputs["pair_rejections"])
    write_table(sides, outputs["pairs"])


def score(*, pairs_path: str, model: str, settings: ScoreSettings, outputs: Mapping[str, str]) -> None:
    """B, V_pg, V_gp and F per prompt and dissimilarity with the permutation null, and the differential n-grams."""
    sides = read_table(pairs_path, SIDE_COLUMNS, "FairPair pairs")
    complete = with_vader(complete_pairs(sides), settings.dissimilarities)
    scores, draws = scores_and_null(
        complete, settings.dissimilarities, settings.folds, settings.null_draws, settings.seed
    )
    scores.insert(0, "model", model)
    write_table(scores, outputs["scores"])
    write_table(draws, outputs["null"])
    ngrams = differential_ngrams(
        sides.loc[sides["side"] == "perturbed_original", "text"].tolist(),
        sides.loc[sides["side"] == "counterfactual", "text"].tolist(),
        n_max=settings.ngrams["n_max"],
        top=settings.ngrams["top"],
    )
    write_table(ngrams, outputs["ngrams"])
    plot_ngrams(ngrams, outputs["ngrams_plot"], title=model)


def complete_pairs(sides: pd.DataFrame) -> pd.DataFrame:
    """Keep, per prompt, the same number of samples on both sides.

    An LLM perturbation can reject some of a prompt's perturbed continuations; such a
    prompt keeps the first ``m`` samples of each side (m = the smaller count), renumbered
    0..m-1, and a prompt left with fewer than 2 is dropped with a log line rather than
    failing the run.
    """
    kept = []
    for prompt_id, rows in sides.groupby("prompt_id", sort=True):
        a = rows[rows["side"] == "perturbed_original"].sort_values("sample")
        b = rows[rows["side"] == "counterfactual"].sort_values("sample")
        m = min(len(a), len(b))
        if m < 2:
            log.warning("prompt %s: fewer than 2 accepted pairs; left out of the FairPair scores", prompt_id)
            continue
        kept.append(pd.concat([a.head(m).assign(sample=range(m)), b.head(m).assign(sample=range(m))]))
    if not kept:
        raise BiasflowError("no FairPair prompt has 2 or more accepted pairs; raise samples or check the perturbation.")
    return pd.concat(kept, ignore_index=True)


def summary(
    *,
    score_paths: Mapping[str, str],
    null_paths: Mapping[str, str],
    rejection_paths: Mapping[str, str],
    settings: BootstrapSettings,
    comparison: ComparisonSettings,
    outputs: Mapping[str, str],
    pairs: PairChoice | None = None,
) -> None:
    """Per model and dissimilarity: mean F with its 95% CI, the permutation null's test, B and the V's, Welch's test.

    ``score_paths``, ``null_paths`` (each prompt's null draws) and ``rejection_paths`` map each
    model to its files; ``settings`` holds the bootstrap over prompts. ``outputs`` are the files
    by role (:data:`biasflow.fairpair.outputs.SUMMARY`): ``summary`` and its ``plot``, the report's
    HTML page of the summary and the rejection rates (``tables_page``); ``comparisons`` gets the
    ``pairs`` of models chosen (every pair by default, or each against a baseline:
    :mod:`biasflow.model_pairs`) compared (docs/methods.md §2.9), with ``comparison``'s swaps,
    and ``comparisons_plot`` the models ordered with the pairs the tests separate; with
    ``pairs`` none neither role is given and nothing is compared; ``variance``
    and ``variance_plot`` where each model's excess R would move (§2.10). Without
    ``rejection_paths`` (sides made elsewhere, no perturbation step) there are no rejection
    rates: ``rejections`` is then not given and the page leaves their section empty.
    """
    scores = pd.concat(
        [
            read_table(path, PROMPT_SCORE_COLUMNS, "FairPair scores").assign(model=model)
            for model, path in score_paths.items()
        ]
    )
    draws = pd.concat(
        [
            read_table(path, NULL_DRAW_COLUMNS, "FairPair null draws").assign(model=model)
            for model, path in null_paths.items()
        ],
        ignore_index=True,
    )
    pairs = pairs or PairChoice.every()
    pairs.check(score_paths, "the FairPair scores")
    table = summarise(scores, draws, settings)
    write_table(table, outputs["summary"])
    comparisons = None
    if "comparisons" in outputs and pairs.compares:
        log.info("comparisons: %s", pairs.describe())
        comparisons = comparison_table(scores, comparison.null_draws, comparison.seed, pairs=pairs)
        write_table(comparisons, outputs["comparisons"])
    elif not pairs.compares:
        log.info(SKIPPED)
    variance = variance_table(scores)
    write_table(variance, outputs["variance"])
    per_model = _rejection_rates(rejection_paths)
    if "rejections" in outputs:
        write_table(per_model, outputs["rejections"])
    plot_summary(table, outputs["plot"])
    if comparisons is not None and "comparisons_plot" in outputs:
        plot_comparisons(table, comparisons, outputs["comparisons_plot"], against_baseline=pairs.against_baseline)
    plot_variance(variance, outputs["variance_plot"])
    pages.write_tables(table, per_model, comparisons, variance, outputs["tables_page"])


def _rejection_rates(rejection_paths: Mapping[str, str]) -> pd.DataFrame:
    """Per model, the prompts the perturbation tried (``n``), kept (``n_accepted``) and the rejection rate."""
    tables = [
        read_table(path, REJECTION_COLUMNS, "rejections").assign(model=model) for model, path in rejection_paths.items()
    ]
    rejections = pd.concat(tables) if tables else pd.DataFrame(columns=[*REJECTION_COLUMNS, "model"])
    per_model = rejections.groupby("model", as_index=False)[["n", "n_accepted"]].sum()
    per_model["rejection_rate"] = 1 - per_model["n_accepted"] / per_model["n"]
    return per_model


def tables_from_sides(
    *,
    sides_paths: Mapping[str, str],
    settings: ScoreSettings,
    summary_settings: BootstrapSettings,
    comparison: ComparisonSettings,
    out_dir: str,
    pairs: PairChoice | None = None,
) -> None:
    """``biasflow fairpair-summary``: what the workflow's score and summary steps write, from sides a user brings.

    ``sides_paths`` maps each model to its table of both sides (the workflow's
    ``results/fairpair/pairs/<model>.parquet``, or one made elsewhere); each model gets its
    scores, null draws and differential n-grams (:func:`score`), then all of them the summary,
    comparisons of the ``pairs`` chosen (none: no comparison table or figure) and variance with
    their figures and the tables page (:func:`summary`), under the names of
    :mod:`biasflow.fairpair.outputs` relative to ``out_dir``. There is no perturbation step,
    so no rejection rates. A baseline that names no model is refused before anything is written.
    """
    if not sides_paths:
        raise BiasflowError("no model's sides given: name at least one table of both sides.")
    pairs = pairs or PairChoice.every()
    pairs.check(sides_paths, "--sides (each file's stem)")
    files, final = from_sides(out_dir, sides_paths, compares=pairs.compares)
    for model, path in sides_paths.items():
        score(pairs_path=path, model=model, settings=settings, outputs=files[model])
    summary(
        score_paths={model: paths["scores"] for model, paths in files.items()},
        null_paths={model: paths["null"] for model, paths in files.items()},
        rejection_paths={},
        settings=summary_settings,
        comparison=comparison,
        outputs=final,
        pairs=pairs,
    )


def score_user_sides(
    *, continuations_path: str, settings: ScoreSettings, summary_settings: BootstrapSettings, out: str, summary_out: str
) -> None:
    """``biasflow fairpair-score``: B, V and F of a continuation table the user brings, and its summary.

    The per-prompt table as the workflow's score step writes it (without ``model``) and, at
    ``summary_out``, the summary the workflow's summary step writes (:func:`summarise`: mean F,
    the permutation null's ``F_excess``, ``R_excess`` and headline ``p_perm``, Welch's test),
    for the whole table as one model, named by the file's stem (``c`` for ``c.csv``).
    """
    table = read_table(continuations_path, SIDE_COLUMNS, "continuation table", numbers=["sample"])
    scores, draws = scores_and_null(
        with_vader(table, settings.dissimilarities),
        settings.dissimilarities,
        settings.folds,
        settings.null_draws,
        settings.seed,
    )
    model = Path(continuations_path).stem
    result = summarise(scores.assign(model=model), draws.assign(model=model), summary_settings)
    write_together({out: table_writer(scores, out), summary_out: table_writer(result, summary_out)})

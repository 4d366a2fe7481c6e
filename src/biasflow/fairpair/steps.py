"""One function per FairPair workflow step (paper 001, docs/methods.md §2), from paths to paths.

Prompts x and their counterfactuals φ(x) → n continuations of each from every evaluated
model (through the shared generation cache) → the perturbed continuations φ(G_i(x)) by the
rule-based swapper or an LLM → B, V and F per prompt and scorer → a summary per model.
The Snakemake scripts and ``biasflow fairpair-score`` call these, by keyword.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Sequence

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fairpair import report
from biasflow.fairpair.ngrams import differential_ngrams
from biasflow.fairpair.perturbation import Swapper, llm_perturb, rule_perturb
from biasflow.fairpair.plots import plot_ngrams, plot_summary
from biasflow.fairpair.prompts import PAIR_PROMPT_COLUMNS, common_sents, load_occupations, load_prompt_file
from biasflow.fairpair.scores import (
    PROMPT_SCORE_COLUMNS, SCORERS, SENTIMENT_COLUMN, SIDE_COLUMNS, fairpair_scores, summarise,
)
from biasflow.generation import CachedGenerator
from biasflow.models import Decoding, Request, spec_from_entry
from biasflow.scorers import get_scorer, score_texts
from biasflow.tables import read_table, write_table

log = logging.getLogger("biasflow")


def with_vader(sides: pd.DataFrame, scorers=("sentiment",)) -> pd.DataFrame:
    """``sides`` with the VADER compound score of each text in :data:`SENTIMENT_COLUMN`.

    The scorer layer computes it (each distinct text once), so the sentiment dissimilarity
    takes scores as data (docs/methods.md §2.2). Only needed, and only added, when
    ``scorers`` include ``sentiment``.
    """
    if "sentiment" not in scorers:
        return sides
    return sides.assign(**{SENTIMENT_COLUMN: score_texts(get_scorer("vader"), sides["text"].tolist(), None)})


def prompts(*, settings: dict, out: str) -> None:
    """Common Sents prompts (or the user's own file) with their counterfactuals."""
    if settings.get("file"):
        table = load_prompt_file(settings["file"], swapper=Swapper.from_file(settings.get("swaps")))
    else:
        occupations = settings.get("occupations") or load_occupations(settings.get("occupations_file"))
        table = common_sents(settings["pairs"], occupations, settings.get("extra_descriptors") or None)
    log.info("FairPair: %d prompts", len(table))
    write_table(table, out)


def generate(*, prompts_path: str, entry: dict, settings: dict, cache_dir: str, out: str) -> None:
    """``samples`` continuations of every prompt x ("original") and of φ(x) ("counterfactual")."""
    spec = spec_from_entry(entry)
    name = spec.name
    spec = replace(spec, decoding=Decoding(**{**spec.decoding.as_dict(), **settings["decoding"]}))
    table = read_table(prompts_path, PAIR_PROMPT_COLUMNS, "FairPair prompt table")
    generator = CachedGenerator(spec, cache_dir, description=f"fairpair {name}")
    rows, requests = [], []
    for side, column in (("original", "text"), ("counterfactual", "perturbed_text")):
        for prompt_id, text in zip(table["prompt_id"], table[column]):
            for sample in range(settings["samples"]):
                rows.append((prompt_id, side, sample))
                requests.append(Request(text, settings["seed"], sample))
    generations = generator(requests)
    result = pd.DataFrame(rows, columns=["prompt_id", "side", "sample"])
    result["text"] = [g.text for g in generations]
    result["model"] = name
    write_table(result, out)


def pairs(
    *, prompts_path: str, continuations_path: str, perturbation: dict, cache_dir: str, out: str, rejections_out: str
) -> None:
    """The two sides FairPair compares: a_i = φ(G_i(x)) and b_j = G_j(φ(x)).

    ``perturbation`` is ``{"method": "rules"}`` or ``{"method": "llm", "model": <entry>}``;
    LLM perturbations that fail the paper's filters are left out and counted.
    """
    table = read_table(prompts_path, PAIR_PROMPT_COLUMNS, "FairPair prompt table")
    generated = read_table(continuations_path, [*SIDE_COLUMNS, "model"], "FairPair continuations")
    model = generated["model"].iloc[0]
    original = generated.loc[generated["side"] == "original", ["prompt_id", "sample", "text"]]
    if perturbation["method"] == "rules":
        perturbed, rejections = rule_perturb(table, original, Swapper.from_file(perturbation.get("swaps")))
    else:
        perturber = spec_from_entry(perturbation["model"])
        generator = CachedGenerator(perturber, cache_dir, description=f"perturb with {perturber.name}")
        perturbed, rejections = llm_perturb(
            table, original, lambda rs: [g.text for g in generator(rs)],
            entity_gender=perturbation["entity_gender"], counterpart_gender=perturbation["counterpart_gender"],
            max_jaccard=perturbation["max_jaccard"],
        )
    perturbed = perturbed.assign(side="perturbed_original")
    counterfactual = generated[generated["side"] == "counterfactual"][SIDE_COLUMNS]
    sides = pd.concat([perturbed[SIDE_COLUMNS], counterfactual], ignore_index=True)
    sides["model"] = model
    rejections.insert(0, "model", model)
    rate = 1 - rejections["n_accepted"].sum() / max(1, rejections["n"].sum())
    log.info("%s: %.1f%% of perturbed continuations rejected", model, 100 * rate)
    write_table(rejections, rejections_out)
    write_table(sides, out)


def score(*, pairs_path: str, settings: dict, out: str, ngrams_out: str, ngrams_plot: str) -> None:
    """B, V_pg, V_gp and F per prompt and scorer, and the most differential n-grams of one model."""
    sides = read_table(pairs_path, [*SIDE_COLUMNS, "model"], "FairPair pairs")
    complete = with_vader(complete_pairs(sides), settings["scorers"])
    scores = fairpair_scores(complete, settings["scorers"], settings.get("folds"))
    scores.insert(0, "model", sides["model"].iloc[0])
    write_table(scores, out)
    ngrams = differential_ngrams(
        sides.loc[sides["side"] == "perturbed_original", "text"].tolist(),
        sides.loc[sides["side"] == "counterfactual", "text"].tolist(),
        n_max=settings["ngrams"]["n_max"],
        top=settings["ngrams"]["top"],
    )
    write_table(ngrams, ngrams_out)
    plot_ngrams(ngrams, ngrams_plot, title=str(sides["model"].iloc[0]))


def complete_pairs(sides: pd.DataFrame) -> pd.DataFrame:
    """Keep, per prompt, the same number of samples on both sides.

    An LLM perturbation can reject some of a prompt's perturbed continuations; such a
    prompt keeps the first ``m`` samples of each side (m = the smaller count), renumbered
    0..m-1, and a prompt left with fewer than 2 is dropped with a log line rather than
    failing the run. Scores and the Welch test both use this table.
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


def summary(*, pairs_paths: Sequence[str], score_paths: Sequence[str], rejection_paths: Sequence[str], out: str,
            plot_out: str, rejections_out: str, tables_page: str) -> None:
    """Per model and scorer: mean F with its 95% CI, means of B and the V's, and Welch's t-test.

    ``tables_page`` is the report's HTML page of the summary and the rejection rates.
    """
    sides = pd.concat(
        [complete_pairs(read_table(p, [*SIDE_COLUMNS, "model"], "FairPair pairs")) for p in pairs_paths]
    )
    scores = pd.concat([read_table(p, ["model", *PROMPT_SCORE_COLUMNS], "FairPair scores") for p in score_paths])
    table = summarise(with_vader(sides, set(scores["scorer"])), scores)
    write_table(table, out)
    rejections = pd.concat([read_table(p, ["model", "n", "n_accepted"], "rejections") for p in rejection_paths])
    per_model = rejections.groupby("model", as_index=False)[["n", "n_accepted"]].sum()
    per_model["rejection_rate"] = 1 - per_model["n_accepted"] / per_model["n"]
    write_table(per_model, rejections_out)
    plot_summary(table, plot_out)
    report.write_tables(table, per_model, tables_page)


def score_file(*, continuations_path: str, out: str, folds: int | None = None) -> None:
    """``biasflow fairpair-score``: B, V and F of a continuation table the user brings."""
    table = read_table(continuations_path, SIDE_COLUMNS, "continuation table")
    write_table(fairpair_scores(with_vader(table), SCORERS, folds), out)

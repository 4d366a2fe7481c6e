# CAIRO's names and lookups, which its rule files beside this one read (data, paraphrase, generate, score, select),
# and what it adds to the default target, the power planner and the compare pairs (rules/common.smk).
import dataclasses

from biasflow.cairo import outputs as cairo_outputs
from biasflow.cairo.continuations import GenerationSettings
from biasflow.cairo.datasets import needed_files
from biasflow.cairo.datasets.sources import dataset_dir, loader_settings, used_metrics
from biasflow.cairo.outputs import NEUTRAL_SUFFIX
from biasflow.cairo.paraphrase import ParaphraseSettings, template_files
from biasflow.cairo.scorer_bias import ScorerBiasSettings
from biasflow.cairo.scorer_runs import counterfactual, run_scorers
from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.stats import StatsSettings
from biasflow.scorers import scorer_class
from biasflow.scorers.table import ScoringSettings

# CAIRO's config section (its axes, prompts, paraphrasing, generation, scoring and selection settings).
CAIRO = config["cairo"]
AXES = list(CAIRO["axes"]) if "cairo" in METHODS else []
PARAPHRASERS = list(config["paraphrasers"]) if "cairo" in METHODS else []
SCORER = CAIRO["scoring"]["scorer"]
SCORERS = run_scorers(CAIRO["scoring"])
COUNTERFACTUAL = counterfactual(CAIRO["scoring"]) and bool(AXES)
# CAIRO runs once per label (a scorer, or its neutral scores with cairo.scoring.neutralise): the headline
# one writes results/cairo/, each other one results/cairo/scorers/<label>/ (docs/methods.md §5.5-5.6).
LABELS = [label for s in SCORERS for label in ([s, f"{s}{NEUTRAL_SUFFIX}"] if CAIRO["scoring"]["neutralise"] else [s])]
HEADLINE = f"{SCORER}{NEUTRAL_SUFFIX}" if CAIRO["scoring"]["neutralise"] else SCORER
SIDE_LABELS = [label for label in LABELS if label != HEADLINE]
RUNS = ["", *(f"scorers/{label}/" for label in SIDE_LABELS)]


# CAIRO's wildcards match only the names of this config (a typo never matches a path).
wildcard_constraints:
    metric=alternatives(used_metrics(config)),
    axis=alternatives(AXES),
    paraphraser=alternatives(PARAPHRASERS),
    scorer=alternatives(SCORERS),


def metrics_of(axis):
    return CAIRO["axes"][axis]


def data_dir(wildcards):
    return dataset_dir(config, wildcards.metric)


def dataset_inputs(wildcards):
    """The files the metric reads for the axis (so editing one reruns its prompts), or the download rule's folder."""
    source = CAIRO["datasets"][wildcards.metric]
    if not source["path"]:
        return [data_dir(wildcards)]
    return [
        str(Path(source["path"]) / name) for name in needed_files(wildcards.metric, wildcards.axis, source["options"])
    ]


def dataset_url(wildcards):
    return CAIRO["datasets"][wildcards.metric]["url"]


def loader_params(wildcards):
    return loader_settings(config, wildcards.metric, wildcards.axis).params()


def paraphrase_templates(wildcards):
    """The templates this paraphraser reads (chat or completion, and the batch one)."""
    chat = config["paraphrasers"][wildcards.paraphraser]["chat"]
    return template_files(ParaphraseSettings.from_config(config), chat)


def paraphrase_outputs(wildcards):
    return [
        cairo_outputs.of_step("paraphrase", paraphraser=p, metric=wildcards.metric, axis=wildcards.axis)["paraphrases"]
        for p in PARAPHRASERS
    ]


def paraphrase_files(axis, paraphraser="{paraphraser}"):
    """Per metric of the axis: its original prompts and the paraphrases and rejections one paraphraser writes."""
    return {
        metric: {
            "prompts": cairo_outputs.of_step("original_prompts", metric=metric, axis=axis)["prompts"],
            **cairo_outputs.of_step("paraphrase", paraphraser=paraphraser, metric=metric, axis=axis),
        }
        for metric in metrics_of(axis)
    }


def generate_files(axis, model="{model}"):
    """Per metric of the axis: its prompt sets and the continuations one model writes."""
    return {
        metric: {
            "prompts": cairo_outputs.of_step("prompt_sets", metric=metric, axis=axis)["prompts"],
            **cairo_outputs.of_step("generate", model=model, metric=metric, axis=axis),
        }
        for metric in metrics_of(axis)
    }


def files_of(axis, files):
    """Params function: the job's files by metric (``files`` is paraphrase_files or generate_files)."""
    return lambda wildcards: files(axis, **dict(wildcards.items()))


def prompt_summaries(wildcards):
    return [cairo_outputs.of_step("original_prompts", metric=m, axis=a)["summary"] for a in AXES for m in metrics_of(a)]


def rejection_tables(wildcards):
    return [
        cairo_outputs.of_step("paraphrase", paraphraser=p, metric=m, axis=a)["rejections"]
        for a in AXES
        for m in metrics_of(a)
        for p in PARAPHRASERS
    ]


def scorer_files(wildcards):
    """Files a score depends on besides the continuations (a lexicon, a checkpoint), so editing one reruns scoring."""
    return [CAIRO["scoring"][key] for key in scorer_class(wildcards.scorer).files if CAIRO["scoring"][key]]


def scoring_params(wildcards):
    """The settings of one scorer's jobs: its own options only."""
    return ScoringSettings.of({**CAIRO["scoring"], "scorer": wildcards.scorer}).params()


def score_gpu(wildcards):
    """Score jobs request a GPU only when told to run on one (device: auto uses one where there is one)."""
    return int(wildcards.scorer == "detoxify-unbiased" and CAIRO["scoring"]["device"] == "cuda")


def label_of(run):
    """The scorer label of a CAIRO run: the headline one for results/cairo/, else the one its path names."""
    return run[len("scorers/") : -1] if run else HEADLINE


def run_label(wildcards):
    return label_of(wildcards.run)


def stats_params(wildcards):
    return dataclasses.replace(StatsSettings.from_config(config), scorer=run_label(wildcards)).params()


def headline_tables(wildcards):
    """Each scorer run's headline table of the axis, by the run's label."""
    return {label_of(run): cairo_outputs.select_output("table", run, wildcards.axis) for run in RUNS}


def counterfactual_inputs(wildcards):
    """One scorer's raw scores and variants of every model and metric of an axis, with the continuations."""
    return {
        "continuations": model_files("generate", wildcards.axis)["continuations"],
        "scores": model_files("score", wildcards.axis, scorer=wildcards.scorer)["scores"],
        "variants": model_files("counterfactual", wildcards.axis, scorer=wildcards.scorer)["variants"],
    }


def model_files(step, axis, **wildcards):
    """One step's files by role, each a list over every model and metric of the axis (models first)."""
    files = [
        cairo_outputs.of_step(step, model=model, metric=metric, axis=axis, **wildcards)
        for model in MODELS
        for metric in metrics_of(axis)
    ]
    return {role: [paths[role] for paths in files] for role in cairo_outputs.STEPS[step]}


def stats_memory(wildcards, input):
    """The statistics job reads every continuation and score of an axis: memory grows with them."""
    return max(4000, 20 * int(input.size_mb))


def scored_inputs(wildcards):
    return {
        "continuations": model_files("generate", wildcards.axis)["continuations"],
        "scores": model_files("score", wildcards.axis, scorer=run_label(wildcards))["scores"],
    }


def cairo_final_jobs():
    """CAIRO's final tables per scorer run and axis, the scorers' agreement and own bias, the prompts' summaries."""
    jobs = []
    for run in RUNS:
        jobs += [
            (cairo_outputs.select_output("table", run, axis), rules.cairo_select, {"run": run, "axis": axis})
            for axis in AXES
        ]
        jobs += [
            (cairo_outputs.stats_output("bias", run, axis), rules.cairo_stats, {"run": run, "axis": axis})
            for axis in AXES
        ]
    if RUNS[1:]:
        jobs += [(cairo_outputs.agreement_output(axis), rules.scorer_agreement, {"axis": axis}) for axis in AXES]
    if COUNTERFACTUAL:
        jobs += [
            (
                cairo_outputs.of_step("scorer_bias", scorer=scorer, axis=axis)["scorer"],
                rules.scorer_bias,
                {"scorer": scorer, "axis": axis},
            )
            for scorer in SCORERS
            for axis in AXES
        ]
    jobs.append((cairo_outputs.of_step("prompt_summary")["table"], rules.prompt_summary, {}))
    if PARAPHRASERS:
        jobs.append((cairo_outputs.of_step("rejections")["table"], rules.rejections, {}))
    return jobs


FINAL_JOBS["cairo"] = cairo_final_jobs
if AXES:  # the power planner reads CAIRO's statistics per axis
    POWER_SOURCES["cairo"] = lambda wildcards: {axis: [cairo_outputs.stats_output("stats", "", axis)] for axis in AXES}
    # A pair's comparison reads the headline scorer's statistics of every axis, one family (biasflow compare --stats).
    COMPARE_SOURCES["cairo"] = lambda baseline, candidate: [
        {
            "paths": [cairo_outputs.stats_output("stats", "", axis) for axis in AXES],
            "baseline": baseline,
            "candidate": candidate,
        }
    ]

# CAIRO's names and lookups, which its rule files beside this one read (data, paraphrase, generate, score, select), in
# CAIRO's own namespace (rules/method.smk). What it adds to the default target, the power planner and the compare
# pairs is its declaration's (biasflow/cairo/targets.py).
import dataclasses

from biasflow.cairo import outputs as cairo_outputs
from biasflow.cairo.continuations import GenerationSettings
from biasflow.cairo.datasets import needed_files
from biasflow.cairo.datasets.sources import dataset_dir, loader_settings, used_metrics
from biasflow.cairo.outputs import NEUTRAL_SUFFIX
from biasflow.cairo.paraphrase import ParaphraseSettings, template_files
from biasflow.cairo.scorer_bias import ScorerBiasSettings
from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.stats import StatsSettings
from biasflow.cairo.targets import ScorerRuns
from biasflow.scorers import scorer_class
from biasflow.scorers.table import ScoringSettings

# CAIRO's config section (its axes, prompts, paraphrasing, generation, scoring and selection settings).
CAIRO = config["cairo"]
PARAPHRASERS = list(config["paraphrasers"])
# CAIRO runs once per label (a scorer, or its neutral scores with cairo.scoring.neutralise): the headline
# one writes results/cairo/, each other one results/cairo/scorers/<label>/ (docs/methods.md §5.5-5.6).
SCORER_RUNS = ScorerRuns.of(config)
AXES = SCORER_RUNS.axes
SCORERS = SCORER_RUNS.scorers
RUNS = SCORER_RUNS.runs


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


def run_label(wildcards):
    return SCORER_RUNS.label_of(wildcards.run)


def stats_params(wildcards):
    return dataclasses.replace(StatsSettings.from_config(config), scorer=run_label(wildcards)).params()


def headline_tables(wildcards):
    """Each scorer run's headline table of the axis, by the run's label."""
    return {SCORER_RUNS.label_of(run): cairo_outputs.select_output("table", run, wildcards.axis) for run in RUNS}


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

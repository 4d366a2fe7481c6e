# Helpers shared by the rule files (config checks, lookups, target lists). No work here.
# Each rule's params hold only the settings its step reads (a settings object's plain values),
# and every file its step reads is an input, so an edit reruns exactly the jobs that read it.
import dataclasses
import os
import re
import sys
from pathlib import Path

from biasflow import bundled
from biasflow.cairo.paraphrase import ParaphraseSettings, template_files
from biasflow.cairo.scorer_bias import ScorerBiasSettings
from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.stats import StatsSettings
from biasflow.config import (
    check_config,
    counterfactual,
    dataset_dir,
    loader_settings,
    read_config_files,
    resolve_bundled,
    run_scorers,
    used_metrics,
    validate_config,
)
from biasflow.datasets import needed_files
from biasflow.errors import BiasflowError
from biasflow.fairpair.comparisons import ComparisonSettings
from biasflow.fairpair.perturbation import PerturbationSettings, perturbation_files
from biasflow.fairpair.prompts import PromptSettings, prompt_files
from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS, BootstrapSettings, ScoreSettings
from biasflow.fairpair.steps import SamplingSettings
from biasflow.fpr import outputs
from biasflow.fpr.steps import ClassifySettings, GapSettings, SummarySettings, classify_files
from biasflow.fpr.tuning import ClassifierSettings
from biasflow.generation import GenerationSettings
from biasflow.methods import method, methods
from biasflow.models import job_resources
from biasflow.power import planner
from biasflow.report_front import front_page
from biasflow.scorers import scorer_class
from biasflow.scorers.table import ScoringSettings
from biasflow.steps import NEUTRAL_SUFFIX

# Bundled files (`bundled:<name>`) are read from this checkout's package data, as a path
# relative to the working directory, so a second clone reads its own files.
DATA_ROOT = os.path.relpath(bundled.checkout_root(workflow.basedir))
if bundled.foreign_code(workflow.basedir):
    print(f"biasflow warning: {bundled.foreign_code(workflow.basedir)}", file=sys.stderr)

try:
    read_config_files(workflow.configfiles)  # each file read strictly: a key given twice stops here
    validate_config(config)
    resolve_bundled(config, DATA_ROOT)
    # `snakemake --lint` does not check the environment (Snakemake's check_envvars is off
    # then), so it works before the packaged models are installed or an API key is set.
    for warning in check_config(config, environment=workflow.check_envvars):
        print(f"biasflow warning: {warning}", file=sys.stderr)
except BiasflowError as exc:
    sys.exit(f"biasflow config error: {exc}")

METHODS = config["methods"]
AXES = list(config["axes"]) if "cairo" in METHODS else []
PARAPHRASERS = list(config["paraphrasers"]) if "cairo" in METHODS else []
MODELS = list(config["models"])
SCORER = config["scoring"]["scorer"]
SCORERS = run_scorers(config["scoring"])
COUNTERFACTUAL = counterfactual(config["scoring"]) and bool(AXES)
# CAIRO runs once per label (a scorer, or its neutral scores with scoring.neutralise): the headline
# one writes results/cairo/, each other one results/cairo/scorers/<label>/ (docs/methods.md §5.5-5.6).
LABELS = [label for s in SCORERS for label in ([s, f"{s}{NEUTRAL_SUFFIX}"] if config["scoring"]["neutralise"] else [s])]
HEADLINE = f"{SCORER}{NEUTRAL_SUFFIX}" if config["scoring"]["neutralise"] else SCORER
SIDE_LABELS = [label for label in LABELS if label != HEADLINE]
RUNS = ["", *(f"scorers/{label}/" for label in SIDE_LABELS)]
FAIRPAIR_MODELS = method("fairpair").evaluated(config) if "fairpair" in METHODS else []
FPR_PROBES = list(config["fpr"]["probes"]) if "fpr" in METHODS else []
FPR_MODELS = method("fpr").evaluated(config) if "fpr" in METHODS else []
FPR_CLASSIFIERS = list(config["fpr"]["classifiers"]) if "fpr" in METHODS else []
# The methods whose results the power planner reads (docs/methods.md section 6).
POWER_METHODS = [m for m, runs in (("cairo", AXES), ("fairpair", FAIRPAIR_MODELS), ("fpr", FPR_PROBES)) if runs]


def alternatives(names):
    """A regex matching exactly these names (used to constrain wildcards, so a typo never matches)."""
    return "|".join(re.escape(n) for n in names) if names else "(?!)"


def metrics_of(axis):
    return config["axes"][axis]


def data_dir(wildcards):
    return dataset_dir(config, wildcards.metric)


def dataset_inputs(wildcards):
    """The files the metric reads for the axis (so editing one reruns its prompts), or the download rule's folder."""
    source = config["datasets"][wildcards.metric]
    if not source["path"]:
        return [data_dir(wildcards)]
    return [str(Path(source["path"]) / name) for name in needed_files(wildcards.metric, wildcards.axis, source["options"])]


def dataset_url(wildcards):
    return config["datasets"][wildcards.metric]["url"]


def loader_params(wildcards):
    return loader_settings(config, wildcards.metric, wildcards.axis).params()


def model_entry(section):
    """Params function: only this model's own config entry, so other models' jobs stay untouched."""

    def lookup(wildcards):
        name = wildcards.paraphraser if section == "paraphrasers" else wildcards.model
        return {"name": name, **config[section][name]}

    return lookup


def model_resource(section, key):
    """Params function: a resource (threads, mem_mb, gpu, api) of the model this job loads."""

    def lookup(wildcards):
        name = wildcards.paraphraser if section == "paraphrasers" else wildcards.model
        return job_resources(config[section][name])[key]

    return lookup


def settings_params(cls):
    """The plain values of a step's settings (the rule's params: a change of another key reruns nothing)."""
    return cls.from_config(config).params()


def paraphrase_templates(wildcards):
    """The templates this paraphraser reads (chat or completion, and the batch one)."""
    chat = config["paraphrasers"][wildcards.paraphraser]["chat"]
    return template_files(ParaphraseSettings.from_config(config), chat)


def perturber_entry(wildcards):
    """The LLM perturbation's model entry (method llm), or None."""
    name = config["fairpair"]["perturbation"]["model"]
    if config["fairpair"]["perturbation"]["method"] != "llm":
        return None
    return {"name": name, **config["paraphrasers" if name in config["paraphrasers"] else "models"][name]}


def perturbation_resource(key):
    """A resource of the FairPair perturbation job: its LLM's, or a CPU job's for the rule-based swap."""
    perturbation = config["fairpair"]["perturbation"]
    if perturbation["method"] != "llm":
        return {"threads": 1, "mem_mb": 2000, "gpu": 0, "api": 0}[key]
    name = perturbation["model"]
    return job_resources(config["paraphrasers" if name in config["paraphrasers"] else "models"][name])[key]


def fairpair_prompt_files(wildcards):
    return prompt_files(PromptSettings.from_config(config))


def fairpair_perturbation_files(wildcards):
    return perturbation_files(PerturbationSettings.from_config(config))


def fairpair_scores_by_model(wildcards):
    return {model: f"results/fairpair/{model}.csv" for model in FAIRPAIR_MODELS}


def fairpair_null_by_model(wildcards):
    return {model: f"results/fairpair/null/{model}.parquet" for model in FAIRPAIR_MODELS}


def fairpair_rejections_by_model(wildcards):
    return {model: f"results/fairpair/pairs/{model}_rejections.csv" for model in FAIRPAIR_MODELS}


def paraphrase_outputs(wildcards):
    return expand(
        "results/prompts/paraphrased/{paraphraser}/{metric}/{axis}.parquet",
        paraphraser=PARAPHRASERS,
        metric=wildcards.metric,
        axis=wildcards.axis,
    )


def prompt_summaries(wildcards):
    return [f"results/prompts/original/{m}/{a}_summary.csv" for a in AXES for m in metrics_of(a)]


def rejection_tables(wildcards):
    return [
        f"results/prompts/paraphrased/{p}/{m}/{a}_rejections.csv"
        for a in AXES
        for m in metrics_of(a)
        for p in PARAPHRASERS
    ]


def scorer_files(wildcards):
    """Files a score depends on besides the continuations (a lexicon, a checkpoint), so editing one reruns scoring."""
    return [config["scoring"][key] for key in scorer_class(wildcards.scorer).files if config["scoring"][key]]


def scoring_params(wildcards):
    """The settings of one scorer's jobs: its own options only."""
    return ScoringSettings.of({**config["scoring"], "scorer": wildcards.scorer}).params()


def score_gpu(wildcards):
    """Score jobs request a GPU only when told to run on one (device: auto uses one where there is one)."""
    return int(wildcards.scorer == "detoxify-unbiased" and config["scoring"]["device"] == "cuda")


def run_label(wildcards):
    """The scorer label of a CAIRO run: the headline one for results/cairo/, else the one its path names."""
    return wildcards.run[len("scorers/"):-1] if wildcards.run else HEADLINE


def stats_params(wildcards):
    return dataclasses.replace(StatsSettings.from_config(config), scorer=run_label(wildcards)).params()


def headline_tables(wildcards):
    return [f"results/cairo/{run}{wildcards.axis}.csv" for run in RUNS]


def counterfactual_inputs(wildcards):
    """One scorer's raw scores and variants of every model and metric of an axis, with the continuations."""
    pairs = [(model, metric) for model in MODELS for metric in metrics_of(wildcards.axis)]
    return {
        "continuations": [f"results/continuations/{m}/{x}/{wildcards.axis}.parquet" for m, x in pairs],
        "scores": [f"results/scores/{wildcards.scorer}/{m}/{x}/{wildcards.axis}.parquet" for m, x in pairs],
        "variants": [f"results/scorer_bias/{wildcards.scorer}/variants/{m}/{x}/{wildcards.axis}.parquet"
                     for m, x in pairs],
    }


def stats_memory(wildcards, input):
    """The statistics job reads every continuation and score of an axis: memory grows with them."""
    return max(4000, 20 * int(input.size_mb))


def scored_inputs(wildcards):
    pairs = [(model, metric) for model in MODELS for metric in metrics_of(wildcards.axis)]
    return {
        "continuations": [f"results/continuations/{m}/{x}/{wildcards.axis}.parquet" for m, x in pairs],
        "scores": [f"results/scores/{run_label(wildcards)}/{m}/{x}/{wildcards.axis}.parquet" for m, x in pairs],
    }


def fpr_output(template, probe, model="{model}", classifier="{classifier}"):
    """A predictions path (biasflow/fpr/outputs.py): a probe set's name, wildcards left as wildcards."""
    return outputs.FOLDER + template.format(probe=probe, model=model, classifier=classifier)


def fpr_probe_output(role, probe="{probe}"):
    """One probe set's table or figure by its role (biasflow/fpr/outputs.py), the probe a name or the wildcard."""
    return outputs.per_probe(outputs.FOLDER, probe)[role]


def fpr_summary_output(role):
    return outputs.summary(outputs.FOLDER)[role]


def fpr_classifier(wildcards):
    return ClassifierSettings.of(wildcards.classifier, config["fpr"]["classifiers"][wildcards.classifier])


def fpr_classifier_params(wildcards):
    return fpr_classifier(wildcards).params()


def fpr_classify_files(wildcards):
    """Every file a classification job reads: the probe sets', the labelled set if its method uses it, its templates."""
    return classify_files(ClassifySettings.from_config(config), fpr_classifier(wildcards), config["fpr"]["probes"])


def fpr_predictions_by_probe(wildcards):
    return {p: fpr_output(outputs.PREDICTIONS, p, wildcards.model, wildcards.classifier) for p in FPR_PROBES}


def fpr_probe_predictions(wildcards):
    return [fpr_output(outputs.PREDICTIONS, wildcards.probe, m, c) for m in FPR_MODELS for c in FPR_CLASSIFIERS]


def fpr_predictions_of_probes(wildcards):
    """Each probe set's predictions files (the span null permutes labels within one probe set's templates)."""
    return {p: [fpr_output(outputs.PREDICTIONS, p, m, c) for m in FPR_MODELS for c in FPR_CLASSIFIERS]
            for p in FPR_PROBES}


def fpr_all_predictions(wildcards):
    return [path for paths in fpr_predictions_of_probes(wildcards).values() for path in paths]


def fpr_gaps_by_probe(wildcards):
    return {p: fpr_probe_output("gaps", p) for p in FPR_PROBES}


def fpr_comparisons_by_probe(wildcards):
    return {p: fpr_probe_output("comparisons", p) for p in FPR_PROBES}


def power_sources(wildcards):
    """What the power planner of one method reads, by source: CAIRO's statistics per axis, FPR's predictions per
    probe set, FairPair's per-prompt scores per model."""
    if wildcards.method == "cairo":
        return {axis: [f"results/cairo/stats/{axis}.parquet"] for axis in AXES}
    if wildcards.method == "fpr":
        return fpr_predictions_of_probes(wildcards)
    return {model: [path] for model, path in fairpair_scores_by_model(wildcards).items()}


def power_inputs(wildcards):
    return {"files": [path for paths in power_sources(wildcards).values() for path in paths]}


def power_params(wildcards):
    """The plain values of the method's planner settings."""
    return settings_params(planner(wildcards.method).Settings)


# `snakemake --report` gathers the figures and tables of every job the target needs, and stops
# at the first one missing. A report right after a partial run (`make demo` runs the main job
# only) should show what was computed, so under --report the default target is what exists,
# and the front page (workflow/report/workflow.rst) names the methods, models and data of it.
REPORTING = any(arg == "--report" or arg.startswith("--report=") for arg in sys.argv)


def reported_methods():
    """The methods whose final tables exist."""
    return [m.name for m in methods(METHODS) if any(Path(path).exists() for path in m.finals(config))]


if REPORTING:
    config["__report__"] = front_page(config, reported_methods(), DATA_ROOT)


def final_jobs():
    """The default target's jobs: each final table of the configured methods with the rule and wildcards that write it."""
    jobs = []
    if "cairo" in METHODS:
        for run in RUNS:
            jobs += [(f"results/cairo/{run}{axis}.csv", rules.cairo_select, {"run": run, "axis": axis}) for axis in AXES]
            jobs += [(f"results/cairo/{run}bias/{axis}.csv", rules.cairo_stats, {"run": run, "axis": axis})
                     for axis in AXES]
        if RUNS[1:]:
            jobs += [(f"results/cairo/scorers/{axis}_agreement.csv", rules.scorer_agreement, {"axis": axis})
                     for axis in AXES]
        if COUNTERFACTUAL:
            jobs += [(f"results/scorer_bias/{scorer}/{axis}_scorer.csv", rules.scorer_bias,
                      {"scorer": scorer, "axis": axis}) for scorer in SCORERS for axis in AXES]
        jobs.append(("results/prompts/summary.csv", rules.prompt_summary, {}))
        if PARAPHRASERS:
            jobs.append(("results/prompts/rejections.csv", rules.rejections, {}))
    if "fairpair" in METHODS:
        jobs.append(("results/fairpair/summary.csv", rules.fairpair_summary, {}))
    if FPR_PROBES:
        jobs.append((fpr_summary_output("spans"), rules.fpr_summary, {}))
    jobs += [(f"results/power/{method}.csv", rules.power, {"method": method}) for method in POWER_METHODS]
    return jobs


def final_outputs():
    """The default target: every method's final tables (under --report, those already computed)."""
    if not REPORTING:
        return [target for target, _, _ in final_jobs()]
    computed, missing, outdated = [], [], []
    for target, rule, wildcards in final_jobs():
        siblings = [expand(str(path), **wildcards)[0] for path in rule.output]
        absent = [path for path in siblings if not Path(path).exists()]
        if not Path(target).exists():
            missing.append(target)
        elif absent:
            # Results from an earlier biasflow that did not yet write every figure or table page.
            outdated.append((target, absent))
        else:
            computed.append(target)
    if missing:
        print(f"The report shows what has been computed; not yet: {', '.join(sorted(missing))}.", file=sys.stderr)
    for target, absent in outdated:
        print(
            f"Left out of the report: {target} was written by an earlier biasflow without {', '.join(absent)}; "
            f"`snakemake --cores 2 {' '.join(absent)}` writes {'them' if len(absent) > 1 else 'it'} "
            "from what is computed, then make the report again.",
            file=sys.stderr,
        )
    return computed

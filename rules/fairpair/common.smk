# FairPair's names and lookups, which rules/fairpair/steps.smk reads, in FairPair's own namespace
# (rules/method.smk). What it adds to the default target, the power planner and the compare pairs is its
# declaration's (biasflow/fairpair/method.py).
from biasflow.fairpair import outputs as fairpair_outputs
from biasflow.fairpair.comparisons import ComparisonSettings
from biasflow.fairpair.perturbation import PerturbationSettings, perturbation_files
from biasflow.fairpair.prompts import PromptSettings, prompt_files
from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS, BootstrapSettings, ScoreSettings
from biasflow.fairpair.steps import SamplingSettings

FAIRPAIR_MODELS = METHOD.evaluated(config)


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


def fairpair_output(role, model="{model}"):
    """One of FairPair's files by its role (biasflow/fairpair/outputs.py), a model's name or the wildcard."""
    return fairpair_outputs.output(role, model)


def fairpair_by_model(role):
    """Params function: one file of each model by its role, by the model's name."""
    return lambda wildcards: {model: fairpair_output(role, model) for model in FAIRPAIR_MODELS}

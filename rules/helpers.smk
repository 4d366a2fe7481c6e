# The core's helpers for rules, in every namespace that has rules: the core's own (included by common.smk) and each
# method's module (rules/method.smk), whose globals are its own. No work here, and nothing a method defines.
# Each rule's params hold only the settings its step reads (a settings object's plain values),
# and every file its step reads is an input, so an edit reruns exactly the jobs that read it.
import re

from biasflow.model_pairs import PairChoice
from biasflow.models import job_resources

METHODS = config["methods"]
MODELS = list(config["models"])
# Which pairs of models every method's comparisons compare (docs/methods.md section 7); with none, no rule
# declares a comparison table or figure (when_compared), so none is written or awaited.
COMPARISONS = PairChoice.from_config(config)


def alternatives(names):
    """A regex matching exactly these names (used to constrain wildcards, so a typo never matches)."""
    return "|".join(re.escape(n) for n in names) if names else "(?!)"


# A model's name: a typo never matches a path. Each namespace constrains its own rules only.
wildcard_constraints:
    model=alternatives(MODELS),


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


def when_compared(**named):
    """A rule's named comparison inputs or outputs, or none where comparisons.pairs is none (unpacked with **)."""
    return named if COMPARISONS.compares else {}

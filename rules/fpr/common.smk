# The FPR gaps' names and lookups, which rules/fpr/steps.smk reads, and what it adds to the default target,
# the power planner and the compare pairs (rules/common.smk).
from biasflow.fpr import outputs as fpr_outputs
from biasflow.fpr.steps import ClassifySettings, GapSettings, SummarySettings, classify_files
from biasflow.fpr.tuning import ClassifierSettings
from biasflow.methods import method
from biasflow.model_pairs import VARIANT

FPR_PROBES = list(config["fpr"]["probes"]) if "fpr" in METHODS else []
FPR_MODELS = method("fpr").evaluated(config) if "fpr" in METHODS else []
FPR_CLASSIFIERS = list(config["fpr"]["classifiers"]) if "fpr" in METHODS else []


def fpr_output(template, probe, model="{model}", classifier="{classifier}"):
    """A predictions path (biasflow/fpr/outputs.py): a probe set's name, wildcards left as wildcards."""
    return fpr_outputs.FOLDER + template.format(probe=probe, model=model, classifier=classifier)


def fpr_probe_output(role, probe="{probe}"):
    """One probe set's table or figure by its role (biasflow/fpr/outputs.py), the probe a name or the wildcard."""
    return fpr_outputs.per_probe(fpr_outputs.FOLDER, probe)[role]


def fpr_summary_output(role):
    return fpr_outputs.summary(fpr_outputs.FOLDER)[role]


def fpr_classifier(wildcards):
    return ClassifierSettings.of(wildcards.classifier, config["fpr"]["classifiers"][wildcards.classifier])


def fpr_classifier_params(wildcards):
    return fpr_classifier(wildcards).params()


def fpr_classify_files(wildcards):
    """Every file a classification job reads: the probe sets', the labelled set if its method uses it, its templates."""
    return classify_files(ClassifySettings.from_config(config), fpr_classifier(wildcards), config["fpr"]["probes"])


def fpr_predictions_by_probe(wildcards):
    return {p: fpr_output(fpr_outputs.PREDICTIONS, p, wildcards.model, wildcards.classifier) for p in FPR_PROBES}


def fpr_probe_predictions(wildcards):
    return [fpr_output(fpr_outputs.PREDICTIONS, wildcards.probe, m, c) for m in FPR_MODELS for c in FPR_CLASSIFIERS]


def fpr_predictions_of_probes(wildcards):
    """Each probe set's predictions files (the span null permutes labels within one probe set's templates)."""
    return {
        p: [fpr_output(fpr_outputs.PREDICTIONS, p, m, c) for m in FPR_MODELS for c in FPR_CLASSIFIERS]
        for p in FPR_PROBES
    }


def fpr_all_predictions(wildcards):
    return [path for paths in fpr_predictions_of_probes(wildcards).values() for path in paths]


def fpr_gaps_by_probe(wildcards):
    return {p: fpr_probe_output("gaps", p) for p in FPR_PROBES}


def fpr_comparisons_by_probe(wildcards):
    """Each probe set's comparison table; none where comparisons.pairs is none (the gaps rule writes none)."""
    return {p: fpr_probe_output("comparisons", p) for p in FPR_PROBES} if COMPARISONS.compares else {}


def fpr_pair_comparisons(baseline, candidate):
    """A pair's comparisons: on each probe set, each classifier's system of the candidate against the baseline's of
    the same classifier (biasflow compare --method fpr on the two prediction files), labelled by both."""
    return [
        {
            "paths": [fpr_output(fpr_outputs.PREDICTIONS, probe, m, classifier) for m in (baseline, candidate)],
            "baseline": f"{baseline}{VARIANT}{classifier}",
            "candidate": f"{candidate}{VARIANT}{classifier}",
            "labels": {"probe": probe, "classifier": classifier},
        }
        for probe in FPR_PROBES
        for classifier in FPR_CLASSIFIERS
    ]


FINAL_JOBS["fpr"] = lambda: [(fpr_summary_output("spans"), rules.fpr_summary, {})] if FPR_PROBES else []
if FPR_PROBES:  # the power planner reads each probe set's predictions, and so do a pair's comparisons
    POWER_SOURCES["fpr"] = fpr_predictions_of_probes
    COMPARE_SOURCES["fpr"] = fpr_pair_comparisons

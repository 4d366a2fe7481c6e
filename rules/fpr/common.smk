# The FPR gaps' names and lookups, which rules/fpr/steps.smk reads, in the method's own namespace
# (rules/method.smk). What it adds to the default target, the power planner and the compare pairs is its
# declaration's (biasflow/fpr/method.py).
from biasflow.fpr import outputs as fpr_outputs
from biasflow.fpr.outputs import predictions
from biasflow.fpr.steps import ClassifySettings, GapSettings, SummarySettings, classify_files
from biasflow.fpr.tuning import ClassifierSettings

FPR_PROBES = list(config["fpr"]["probes"])
FPR_CLASSIFIERS = list(config["fpr"]["classifiers"])


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
    return {p: predictions(p, wildcards.model, wildcards.classifier) for p in FPR_PROBES}


def fpr_probe_predictions(wildcards):
    return fpr_predictions_of_probes(wildcards)[wildcards.probe]


def fpr_predictions_of_probes(wildcards):
    """Each probe set's predictions files (the span null permutes labels within one probe set's templates), as the
    power planner reads them."""
    return METHOD.power_sources(config)


def fpr_all_predictions(wildcards):
    return [path for paths in fpr_predictions_of_probes(wildcards).values() for path in paths]


def fpr_gaps_by_probe(wildcards):
    return {p: fpr_probe_output("gaps", p) for p in FPR_PROBES}


def fpr_comparisons_by_probe(wildcards):
    """Each probe set's comparison table; none where comparisons.pairs is none (the gaps rule writes none)."""
    return {p: fpr_probe_output("comparisons", p) for p in FPR_PROBES} if COMPARISONS.compares else {}

# The core's lookups: the config check, the default target, and what the power planner and the compare pairs read of
# each configured method, from its declaration (biasflow/<method>/method.py), so this file names no method. Each
# method's rules are in a Snakemake module of their own (rules/method.smk); the helpers every rule file uses are in
# rules/helpers.smk. No work here.
import os
import sys
from pathlib import Path

from biasflow import bundled
from biasflow.config import check_config, read_config_files, resolve_bundled, validate_config
from biasflow.errors import BiasflowError
from biasflow.methods import method, methods, rule_folder
from biasflow.outputs import Target
from biasflow.power import OUTPUTS as POWER_FILES
from biasflow.power import output as power_output
from biasflow.power import planner
from biasflow.report_front import front_page
from biasflow.verdict_tables import compared_pairs, comparison_settings, written_pairs
from biasflow.verdict_tables import OUTPUTS as VERDICT_FILES
from biasflow.verdict_tables import output as verdict_output

# Bundled files (`bundled:<name>`) are read from this checkout's package data, as a path
# relative to the working directory, so a second clone reads its own files.
DATA_ROOT = os.path.relpath(bundled.checkout_root(workflow.basedir))
if bundled.foreign_code(workflow.basedir):
    print(f"biasflow warning: {bundled.foreign_code(workflow.basedir)}", file=sys.stderr)

try:
    read_config_files(workflow.configfiles)  # each file read strictly: a key given twice stops here
    # A key a method's section now holds, given at the top level as configs once did, is read there with a note.
    for note in validate_config(config):
        print(f"biasflow note: {note}", file=sys.stderr)
    resolve_bundled(config, DATA_ROOT)
    # `snakemake --lint` does not check the environment (Snakemake's check_envvars is off
    # then), so it works before the packaged models are installed or an API key is set.
    for warning in check_config(config, environment=workflow.check_envvars):
        print(f"biasflow warning: {warning}", file=sys.stderr)
except BiasflowError as exc:
    sys.exit(f"biasflow config error: {exc}")


include: "helpers.smk"


# `snakemake --report` gathers the figures and tables of every job the target needs, and stops
# at the first one missing. A report right after a partial run (`make demo` runs the main job
# only) should show what was computed, so under --report the default target is what exists,
# and the front page (workflow/report/workflow.rst) names the methods, models and data of it.
REPORTING = any(arg == "--report" or arg.startswith("--report=") for arg in sys.argv)
# The config's `compare` pairs by their folder, results/compare/<baseline>_vs_<candidate>/ (docs/methods.md
# section 7). What each method's comparison of a pair reads is its declaration's pair_sources(config, baseline,
# candidate): its comparisons, each with its files, the two systems as they name them and the labels that tell
# several apart (rules/compare.smk). Under --report, also the pairs an earlier run compared with another config
# file (the README's pairs.yaml), so `make report` shows their verdicts and pages (verdict_tables.written_pairs).
COMPARE_PAIRS = {pair.name: pair for pair in [*compared_pairs(config), *(written_pairs(config) if REPORTING else [])]}
# Each configured method's rules are in the folder its declaration names inside its package (a method installed
# from outside brings its rules), else in rules/<name>/ of this checkout. RULE_METHODS is every configured method
# with one, in the config's order, each of which the Snakefile makes a module of its own (rules/method.smk;
# docs/adding-a-method.md, section 5). A method with no rule folder has no rules and adds no job.
try:
    RULE_METHODS = [name for name in METHODS if rule_folder(name, Path(workflow.basedir)) is not None]
except BiasflowError as exc:
    sys.exit(f"biasflow error: {exc}")
# The methods with results to plan from (docs/methods.md section 6): those whose declaration gives sources.
POWER_METHODS = [m.name for m in methods(RULE_METHODS) if m.power_sources(config)]


def power_sources(wildcards):
    """What the power planner of one method reads, by source (its declaration's power_sources)."""
    return method(wildcards.method).power_sources(config)


def compare_jobs():
    """Each configured pair's verdict table per method run that evaluates both models and compares them (its
    declaration's pair_sources), with the files its job writes."""
    return [
        Target(verdict_output("table", name, m), tuple(verdict_output(role, name, m) for role in VERDICT_FILES))
        for name, pair in COMPARE_PAIRS.items()
        for m in pair.methods(config)
        if m in RULE_METHODS and method(m).pair_sources(config, pair.baseline, pair.candidate)
    ]


def compare_targets(wildcards):
    """The `compare` target's tables; with no pairs in the config, a line saying how to name some."""
    if not COMPARE_PAIRS:
        print(
            "biasflow: the config's compare section names no pairs, so there is nothing to compare; add "
            '`compare: [{baseline: A, candidate: B}]` (config/README.md, "Did the candidate get worse?").',
            file=sys.stderr,
        )
    return [target.path for target in compare_jobs()]


def compare_comparisons(wildcards):
    """What one method's comparison of one pair reads (its declaration's pair_sources)."""
    pair = COMPARE_PAIRS[wildcards.pair]
    return method(wildcards.method).pair_sources(config, pair.baseline, pair.candidate)


def compare_inputs(wildcards):
    return {"files": [path for comparison in compare_comparisons(wildcards) for path in comparison["paths"]]}


def compare_models(role):
    """Params function: the pair's baseline or candidate."""
    return lambda wildcards: getattr(COMPARE_PAIRS[wildcards.pair], role)


def compare_margin(wildcards):
    """The pair's margin for the method and where it came from (its own margin, or power.min_effect.<method>)."""
    value, source = COMPARE_PAIRS[wildcards.pair].margin(config, wildcards.method)
    return {"value": value, "source": source}


def compare_settings(wildcards):
    """Only the keys the method's comparison reads (a change of another key reruns no comparison)."""
    return comparison_settings(config, wildcards.method)


def power_inputs(wildcards):
    return {"files": [path for paths in power_sources(wildcards).values() for path in paths]}


def power_params(wildcards):
    """The plain values of the method's planner settings."""
    return settings_params(planner(wildcards.method).Settings)


def reported_methods():
    """The methods whose final tables exist."""
    return [m.name for m in methods(METHODS) if any(Path(path).exists() for path in m.finals(config))]


if REPORTING:
    config["__report__"] = front_page(config, reported_methods(), DATA_ROOT)


def final_jobs():
    """The default target's jobs (biasflow.outputs.Target): each final table of the configured methods with rules
    (their declarations' targets), then each power table, then the verdict tables of the config's compare pairs
    (none without pairs)."""
    jobs = [target for m in methods(RULE_METHODS) for target in m.targets(config)]
    jobs += [Target(power_output("table", m), tuple(power_output(r, m) for r in POWER_FILES)) for m in POWER_METHODS]
    return jobs + compare_jobs()


def final_outputs():
    """The default target: every method's final tables (under --report, those already computed)."""
    if not REPORTING:
        return [target.path for target in final_jobs()]
    computed, missing, outdated = [], [], []
    for target in final_jobs():
        absent = [path for path in target.written if not Path(path).exists()]
        if not Path(target.path).exists():
            missing.append(target.path)
        elif absent:
            # Results from an earlier biasflow that did not yet write every figure or table page.
            outdated.append((target.path, absent))
        else:
            computed.append(target.path)
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

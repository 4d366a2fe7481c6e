# Helpers shared by the rule files (config checks, lookups, target lists). No work here.
# Each method's own names and lookups are in rules/<name>/common.smk, its rules beside them in rules/<name>/.
# Each rule's params hold only the settings its step reads (a settings object's plain values),
# and every file its step reads is an input, so an edit reruns exactly the jobs that read it.
import os
import re
import sys
from pathlib import Path

from biasflow import bundled
from biasflow.config import check_config, read_config_files, resolve_bundled, validate_config
from biasflow.errors import BiasflowError
from biasflow.methods import methods, rule_folder
from biasflow.model_pairs import PairChoice
from biasflow.models import job_resources
from biasflow.power import output as power_output
from biasflow.power import planner
from biasflow.report_front import front_page
from biasflow.verdict_tables import compared_pairs, comparison_settings, written_pairs
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

METHODS = config["methods"]
MODELS = list(config["models"])
# Which pairs of models every method's comparisons compare (docs/methods.md section 7); with none, no rule
# declares a comparison table or figure (when_compared), so none is written or awaited.
COMPARISONS = PairChoice.from_config(config)
# Each method's rule file adds what the default target and the power planner need of it, so this
# file names no method: FINAL_JOBS[name]() lists its final tables, each with the rule and wildcards
# that write it; POWER_SOURCES[name](wildcards) what its planner reads, by source, where it has any
# (docs/methods.md section 6).
FINAL_JOBS = {}
POWER_SOURCES = {}
# `snakemake --report` gathers the figures and tables of every job the target needs, and stops
# at the first one missing. A report right after a partial run (`make demo` runs the main job
# only) should show what was computed, so under --report the default target is what exists,
# and the front page (workflow/report/workflow.rst) names the methods, models and data of it.
REPORTING = any(arg == "--report" or arg.startswith("--report=") for arg in sys.argv)
# The config's `compare` pairs by their folder, results/compare/<baseline>_vs_<candidate>/ (docs/methods.md
# section 7). Each method's rule file adds what its comparison of a pair reads, COMPARE_SOURCES[name](baseline,
# candidate): its comparisons, each with its files, the two systems as they name them and the labels that tell
# several apart (rules/compare.smk). Under --report, also the pairs an earlier run compared with another config
# file (the README's pairs.yaml), so `make report` shows their verdicts and pages (verdict_tables.written_pairs).
COMPARE_PAIRS = {pair.name: pair for pair in [*compared_pairs(config), *(written_pairs(config) if REPORTING else [])]}
COMPARE_SOURCES = {}
# Each configured method's rules are in the folder its declaration names inside its package (a method installed
# from outside brings its rules), else in rules/<name>/ of this checkout. RULE_METHODS is every configured method
# with one, in the config's order: its common.smk (its names and lookups) and its stage files, which the Snakefile
# includes (docs/adding-a-method.md). A method left out of `methods` has no rule file included, so it has no rules.
try:
    RULE_FOLDERS = {name: rule_folder(name, Path(workflow.basedir)) for name in METHODS}
except BiasflowError as exc:
    sys.exit(f"biasflow error: {exc}")
RULE_METHODS = [name for name, folder in RULE_FOLDERS.items() if folder is not None]


def alternatives(names):
    """A regex matching exactly these names (used to constrain wildcards, so a typo never matches)."""
    return "|".join(re.escape(n) for n in names) if names else "(?!)"


def method_rule_files(name):
    """The files of a method's folder: its names and lookups (common.smk) first, which its stage files read."""
    folder = RULE_FOLDERS[name]
    stages = sorted(path.name for path in folder.glob("*.smk") if path.name != "common.smk")
    return [str(folder / stage) for stage in ["common.smk", *stages]]


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


def step_outputs(outputs, step, captions=None, **wildcards):
    """A rule's ``output:`` (unpacked with **): its step's files by role from the method's outputs module
    (biasflow/<method>/outputs.py, its ``OUTPUTS``: a biasflow.outputs.Outputs), the step's wildcards left as they are unless given, none of those written
    only for comparisons where comparisons.pairs is none, and each figure or page the module captions in the
    report, under its category: the caption files in the folder ``captions``, a method installed from outside
    giving its own (its rule folder), else this checkout's workflow/report/."""
    files = outputs.OUTPUTS.of_step(step, compares=COMPARISONS.compares, **wildcards)
    folder = captions or os.path.join(workflow.basedir, "workflow", "report")
    for role, (caption, category) in outputs.OUTPUTS.captions.items():
        if role in files:
            caption_path = os.path.join(folder, caption)
            files[role] = report(files[role], caption=caption_path, category=category)
    return files


def power_sources(wildcards):
    """What the power planner of one method reads, by source (the method's rule file adds it to POWER_SOURCES)."""
    return POWER_SOURCES[wildcards.method](wildcards)


def compare_jobs():
    """Each configured pair's verdict table per method run that evaluates both models, with its rule and wildcards."""
    return [
        (verdict_output("table", name, m), rules.compare_verdicts, {"pair": name, "method": m})
        for name, pair in COMPARE_PAIRS.items()
        for m in pair.methods(config)
        if m in COMPARE_SOURCES
    ]


def compare_targets(wildcards):
    """The `compare` target's tables; with no pairs in the config, a line saying how to name some."""
    if not COMPARE_PAIRS:
        print(
            "biasflow: the config's compare section names no pairs, so there is nothing to compare; add "
            '`compare: [{baseline: A, candidate: B}]` (config/README.md, "Did the candidate get worse?").',
            file=sys.stderr,
        )
    return [target for target, _, _ in compare_jobs()]


def compare_comparisons(wildcards):
    """What one method's comparison of one pair reads (its rule file's COMPARE_SOURCES entry)."""
    pair = COMPARE_PAIRS[wildcards.pair]
    return COMPARE_SOURCES[wildcards.method](pair.baseline, pair.candidate)


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
    """The default target's jobs: each final table of the configured methods with the rule and wildcards that write it
    (each method's rule file adds its own to FINAL_JOBS), then each power table, then the verdict tables of the
    config's compare pairs (none without pairs)."""
    jobs = [job for name in METHODS for job in FINAL_JOBS[name]()]
    jobs += [(power_output("table", name), rules.power, {"method": name}) for name in POWER_SOURCES]
    return jobs + compare_jobs()


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

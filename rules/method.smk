# One configured method's rules, in a Snakemake module of its own (the Snakefile's loop over RULE_METHODS): the
# module is named after the method, and its globals and wildcard constraints are its own, so one method's
# `data_dir` or `{axis}` constraint never reaches another's rules (docs/adding-a-method.md, section 5). Here: the
# core's rule helpers, then the files of the method's rule folder, its common.smk (its names and lookups) first,
# which its stage files read.
import os
from pathlib import Path

from biasflow.methods import method, rule_folder

# Snakemake names a module's namespace after the module, which the Snakefile names after the method.
METHOD = method(__name__)


include: "helpers.smk"


RULE_FOLDER = rule_folder(METHOD.name, Path(workflow.basedir))
# The report's captions: in its rule folder for a method installed from outside, else in this checkout's
# workflow/report/, where each of biasflow's methods has a folder (its outputs name them as cairo/bias.rst).
CAPTIONS = str(RULE_FOLDER) if METHOD.rules else os.path.join(workflow.basedir, "workflow", "report")


def step_outputs(outputs, step, **wildcards):
    """A rule's ``output:`` (unpacked with **): its step's files by role from the method's outputs module
    (biasflow/<method>/outputs.py, its ``OUTPUTS``: a biasflow.outputs.Outputs), the step's wildcards left as they
    are unless given, none of those written only for comparisons where comparisons.pairs is none, and each figure or
    page the module captions in the report, under its category, with its caption file under CAPTIONS."""
    files = outputs.OUTPUTS.of_step(step, compares=COMPARISONS.compares, **wildcards)
    for role, (caption, category) in outputs.OUTPUTS.captions.items():
        if role in files:
            files[role] = report(files[role], caption=os.path.join(CAPTIONS, caption), category=category)
    return files


for _stage in ["common.smk", *sorted(p.name for p in RULE_FOLDER.glob("*.smk") if p.name != "common.smk")]:

    include: str(RULE_FOLDER / _stage)

# biasflow: measure social bias in language models (CAIRO, FairPair, group FPR gaps).
# This file is the table of contents: config, validation, rule files, the default target. Steps that
# read and write small tables run where Snakemake runs, never as cluster jobs: `localrule: True` in their rules.
from snakemake.utils import min_version

min_version("9.0")


# The embedded default, unless the user gives their own with --configfile (which would
# otherwise be merged into it key by key, mixing the default's models into theirs).
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"


# The report's front page: the methods and what this config ran (snakemake --report report.html).
report: "workflow/report/workflow.rst"


include: "rules/common.smk"


# Each method's names and lookups, then the shared steps, then each method's rules (RULE_METHODS:
# the registered methods with rule files here), so a method is its package and its two rule files.
for _method in RULE_METHODS:

    include: f"rules/common/{_method}.smk"


include: "rules/data.smk"
include: "rules/paraphrase.smk"
include: "rules/generate.smk"
include: "rules/score.smk"


for _method in RULE_METHODS:

    include: f"rules/{_method}.smk"


include: "rules/power.smk"
include: "rules/compare.smk"


wildcard_constraints:
    metric=alternatives(used_metrics(config)),
    axis=alternatives(AXES),
    paraphraser=alternatives(PARAPHRASERS),
    model=alternatives(MODELS),
    scorer=alternatives(SCORERS),
    method=alternatives(POWER_METHODS),


rule all:
    default_target: True
    input:
        final_outputs(),
    localrule: True

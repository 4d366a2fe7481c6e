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


# Each configured method's rules (RULE_METHODS), in a Snakemake module named after the method, whose globals and
# wildcard constraints are its own (rules/method.smk: the core's rule helpers, then its folder, rules/<name>/ or the
# one an installed package ships), its rules keeping their names; docs/adding-a-method.md, section 5.
for _method in RULE_METHODS:

    module:
        name: _method
        snakefile:
            "rules/method.smk"
        config:
            config

    use rule * from _method


include: "rules/power.smk"
include: "rules/compare.smk"


# The core's own wildcard (rules/helpers.smk constrains {model} in each namespace): a typo never matches a path.
wildcard_constraints:
    method=alternatives(POWER_METHODS),


rule all:
    default_target: True
    input:
        final_outputs(),
    localrule: True

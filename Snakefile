# biasflow: measure social bias in language models (CAIRO, FairPair, group FPR gaps).
# This file is the table of contents: config, validation, rule files, the default target.
from snakemake.utils import min_version

min_version("9.0")


# The embedded default, unless the user gives their own with --configfile (which would
# otherwise be merged into it key by key, mixing the default's models into theirs).
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"


# The report's front page: the methods and what this config ran (snakemake --report report.html).
report: "workflow/report/workflow.rst"


include: "rules/common.smk"
include: "rules/common/cairo.smk"
include: "rules/common/fairpair.smk"
include: "rules/common/fpr.smk"
include: "rules/data.smk"
include: "rules/paraphrase.smk"
include: "rules/generate.smk"
include: "rules/score.smk"
include: "rules/cairo.smk"
include: "rules/fairpair.smk"
include: "rules/fpr.smk"
include: "rules/power.smk"


wildcard_constraints:
    metric=alternatives(used_metrics(config)),
    axis=alternatives(AXES),
    paraphraser=alternatives(PARAPHRASERS),
    model=alternatives(MODELS),
    scorer=alternatives(SCORERS),
    run=f"(|scorers/({alternatives(SIDE_LABELS)})/)",
    probe=alternatives(FPR_PROBES),
    classifier=alternatives(FPR_CLASSIFIERS),
    method=alternatives(POWER_METHODS),


# Light steps that read and write small tables run where Snakemake runs, never as
# cluster jobs (the download also needs the internet, which compute nodes may lack).
localrules:
    all,
    download_dataset,
    original_prompts,
    prompt_summary,
    prompt_sets,
    rejections,
    cairo_select,
    neutral_scores,
    scorer_agreement,
    fairpair_prompts,
    fairpair_score,
    fairpair_summary,
    fpr_gaps,
    fpr_summary,
    power,


rule all:
    input:
        final_outputs(),
    default_target: True

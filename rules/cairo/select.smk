# Scores -> CAIRO sufficient statistics, Eq. 1 bias and selection per axis (docs/methods.md section 1).
# {run} is empty for the headline scorer's results and scorers/<label>/ for each other scorer's
# (with scoring.neutralise, the raw scores are one of them); scorer bias per scorer (section 5.5).


# CAIRO's own wildcard: which scorer's results a run is (empty for the headline scorer's).
wildcard_constraints:
    run=f"(|scorers/({alternatives(SCORER_RUNS.side_labels)})/)",


rule cairo_stats:
    input:
        unpack(scored_inputs),
    output:
        **step_outputs(cairo_outputs, "stats"),
    log:
        "logs/cairo/{run}stats_{axis}.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=stats_memory,
    params:
        settings=stats_params,
    script:
        "../../workflow/scripts/cairo/stats.py"


rule cairo_select:
    input:
        stats=cairo_outputs.stats_output("stats"),
        prompts=cairo_outputs.of_step("prompt_summary")["table"],
    output:
        **step_outputs(cairo_outputs, "select"),
    log:
        "logs/cairo/{run}select_{axis}.log",
    benchmark:
        "benchmarks/out/cairo_select/{run}{axis}.tsv"
    localrule: True
    conda:
        "../../environment.yml"
    params:
        settings=settings_params(SearchSettings),
        pairs=COMPARISONS.params(),
    script:
        "../../workflow/scripts/cairo/select.py"


rule scorer_bias:
    input:
        unpack(counterfactual_inputs),
    output:
        **step_outputs(cairo_outputs, "scorer_bias"),
    log:
        "logs/scorer_bias/{scorer}/{axis}.log",
    conda:
        "../../environment.yml"
    params:
        settings=settings_params(ScorerBiasSettings),
    script:
        "../../workflow/scripts/cairo/scorer_bias.py"


rule scorer_agreement:
    input:
        tables=lambda wildcards: list(headline_tables(wildcards).values()),
    output:
        table=cairo_outputs.agreement_output(),
    log:
        "logs/cairo/scorers/agreement_{axis}.log",
    localrule: True
    conda:
        "../../environment.yml"
    params:
        tables=headline_tables,
    script:
        "../../workflow/scripts/cairo/scorer_agreement.py"

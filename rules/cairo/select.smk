# Scores -> CAIRO sufficient statistics, Eq. 1 bias and selection per axis (docs/methods.md section 1).
# {run} is empty for the headline scorer's results and scorers/<label>/ for each other scorer's
# (with scoring.neutralise, the raw scores are one of them); scorer bias per scorer (section 5.5).


# CAIRO's own wildcard: which scorer's results a run is (empty for the headline scorer's).
wildcard_constraints:
    run=f"(|scorers/({alternatives(SIDE_LABELS)})/)",


rule cairo_stats:
    input:
        unpack(scored_inputs),
    output:
        stats=cairo_outputs.stats_output("stats"),
        bias=cairo_outputs.stats_output("bias"),
        plot=report(cairo_outputs.stats_output("plot"), caption="../../workflow/report/bias.rst", category="CAIRO"),
    log:
        "logs/cairo/{run}stats_{axis}.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=stats_memory,
    params:
        settings=stats_params,
    script:
        "../../workflow/scripts/cairo_stats.py"


rule cairo_select:
    input:
        stats=cairo_outputs.stats_output("stats"),
        prompts="results/prompts/summary.csv",
    output:
        **when_compared(
            comparisons=cairo_outputs.select_output("comparisons"),
            comparisons_plot=report(
                cairo_outputs.select_output("comparisons_plot"),
                caption="../../workflow/report/comparisons.rst",
                category="CAIRO",
            ),
        ),
        table=cairo_outputs.select_output("table"),
        curve=cairo_outputs.select_output("curve"),
        variance=cairo_outputs.select_output("variance"),
        summary=cairo_outputs.select_output("summary"),
        curve_plot=report(
            cairo_outputs.select_output("curve_plot"), caption="../../workflow/report/curve.rst", category="CAIRO"
        ),
        bias_plot=report(
            cairo_outputs.select_output("bias_plot"),
            caption="../../workflow/report/before_after.rst",
            category="CAIRO",
        ),
        variance_plot=report(
            cairo_outputs.select_output("variance_plot"),
            caption="../../workflow/report/variance.rst",
            category="CAIRO",
        ),
        shares_plot=report(
            cairo_outputs.select_output("shares_plot"), caption="../../workflow/report/shares.rst", category="CAIRO"
        ),
        tables_page=report(
            cairo_outputs.select_output("tables_page"),
            caption="../../workflow/report/cairo_tables.rst",
            category="CAIRO",
        ),
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
        "../../workflow/scripts/cairo_select.py"


rule scorer_bias:
    input:
        unpack(counterfactual_inputs),
    output:
        scorer="results/scorer_bias/{scorer}/{axis}_scorer.csv",
        models="results/scorer_bias/{scorer}/{axis}_models.csv",
        plot=report(
            "results/scorer_bias/{scorer}/{axis}_scorer.png",
            caption="../../workflow/report/scorer_bias.rst",
            category="Scorer bias",
        ),
    log:
        "logs/scorer_bias/{scorer}/{axis}.log",
    conda:
        "../../environment.yml"
    params:
        settings=settings_params(ScorerBiasSettings),
    script:
        "../../workflow/scripts/scorer_bias.py"


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
        "../../workflow/scripts/scorer_agreement.py"

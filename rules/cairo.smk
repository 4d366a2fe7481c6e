# Scores -> CAIRO sufficient statistics and Eq. 1 bias per axis (docs/methods.md section 1).


rule cairo_stats:
    input:
        unpack(scored_inputs),
    output:
        stats="results/cairo/stats/{axis}.parquet",
        bias="results/cairo/bias/{axis}.csv",
        plot=report("results/cairo/bias/{axis}.png", caption="../workflow/report/bias.rst", category="CAIRO"),
    params:
        settings=settings_params(StatsSettings),
    resources:
        mem_mb=stats_memory,
    conda:
        "../environment.yml"
    log:
        "logs/cairo/stats_{axis}.log",
    script:
        "../workflow/scripts/cairo_stats.py"


rule cairo_select:
    input:
        stats="results/cairo/stats/{axis}.parquet",
        prompts="results/prompts/summary.csv",
    output:
        table="results/cairo/{axis}.csv",
        curve="results/cairo/{axis}_curve.csv",
        summary="results/cairo/{axis}.json",
        curve_plot=report("results/cairo/{axis}_curve.png", caption="../workflow/report/curve.rst", category="CAIRO"),
        bias_plot=report("results/cairo/{axis}_bias.png", caption="../workflow/report/before_after.rst", category="CAIRO"),
        shares_plot=report(
            "results/cairo/{axis}_paraphrasers.png", caption="../workflow/report/shares.rst", category="CAIRO"
        ),
        tables_page=report(
            "results/cairo/{axis}_tables.html", caption="../workflow/report/cairo_tables.rst", category="CAIRO"
        ),
    params:
        settings=settings_params(SearchSettings),
    conda:
        "../environment.yml"
    log:
        "logs/cairo/select_{axis}.log",
    benchmark:
        "benchmarks/out/cairo_select/{axis}.tsv"
    script:
        "../workflow/scripts/cairo_select.py"

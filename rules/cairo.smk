# Scores -> CAIRO sufficient statistics and Eq. 1 bias per axis (METHODS.md section 1).


rule cairo_stats:
    input:
        unpack(scored_inputs),
    output:
        stats="results/cairo/stats/{axis}.parquet",
        bias="results/cairo/bias/{axis}.csv",
        plot=report("results/cairo/bias/{axis}.png", caption="../workflow/report/bias.rst", category="CAIRO"),
    params:
        scorer=SCORER,
        normalise=config["bias"]["normalise"],
        subgroups=config["subgroups"],
    conda:
        "../environment.yml"
    log:
        "logs/cairo/stats_{axis}.log",
    script:
        "../workflow/scripts/cairo_stats.py"

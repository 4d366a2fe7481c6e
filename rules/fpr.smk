# Group FPR gaps on template probes (papers 002 and 004, docs/methods.md section 3): one job per
# (model, classifier) classifies every probe set, so a model loads, and a soft prompt is
# trained, once per run.


rule fpr_classify:
    input:
        files=fpr_classify_files,
    output:
        predictions=expand("results/fpr/{probe}/{{model}}/{{classifier}}.tsv", probe=FPR_PROBES),
    params:
        model=model_entry("models"),
        classifier=fpr_classifier_params,
        probes=config["fpr"]["probes"],
        settings=settings_params(ClassifySettings),
        outputs=fpr_predictions_by_probe,
        cache_dir=config["cache_dir"],
    threads: model_resource("models", "threads")
    resources:
        mem_mb=model_resource("models", "mem_mb"),
        gpu=model_resource("models", "gpu"),
        api=model_resource("models", "api"),
    conda:
        "../environment.yml"
    log:
        "logs/fpr/classify/{model}/{classifier}.log",
    benchmark:
        "benchmarks/out/fpr_classify/{model}/{classifier}.tsv"
    script:
        "../workflow/scripts/fpr_classify.py"


rule fpr_gaps:
    input:
        predictions=fpr_probe_predictions,
    output:
        gaps="results/fpr/{probe}_gaps.csv",
        accuracy="results/fpr/{probe}_accuracy.csv",
        comparisons="results/fpr/{probe}_comparisons.csv",
        comparisons_plot=report(
            "results/fpr/{probe}_comparisons.png", caption="../workflow/report/comparisons.rst", category="FPR gaps"
        ),
        plot=report("results/fpr/{probe}_gaps.png", caption="../workflow/report/fpr_gaps.rst", category="FPR gaps"),
    params:
        settings=settings_params(GapSettings),
    conda:
        "../environment.yml"
    log:
        "logs/fpr/gaps_{probe}.log",
    script:
        "../workflow/scripts/fpr_gaps.py"


rule fpr_summary:
    input:
        gaps=expand("results/fpr/{probe}_gaps.csv", probe=FPR_PROBES),
        comparisons=expand("results/fpr/{probe}_comparisons.csv", probe=FPR_PROBES),
        predictions=fpr_all_predictions,
    output:
        spans="results/fpr/gap_spans.csv",
        net="results/fpr/net_significance.csv",
        markedness="results/fpr/markedness.csv",
        spans_plot=report("results/fpr/gap_spans.png", caption="../workflow/report/fpr_spans.rst", category="FPR gaps"),
        markedness_plot=report(
            "results/fpr/markedness.png", caption="../workflow/report/fpr_markedness.rst", category="FPR gaps"
        ),
        variance="results/fpr/variance.csv",
        variance_plot=report(
            "results/fpr/variance.png", caption="../workflow/report/fpr_variance.rst", category="FPR gaps"
        ),
        tables_page=report(
            "results/fpr/summary.html", caption="../workflow/report/fpr_tables.rst", category="FPR gaps"
        ),
    params:
        gaps=fpr_gaps_by_probe,
        comparisons=fpr_comparisons_by_probe,
        predictions=fpr_predictions_of_probes,
        settings=settings_params(SummarySettings),
    conda:
        "../environment.yml"
    log:
        "logs/fpr/summary.log",
    script:
        "../workflow/scripts/fpr_summary.py"

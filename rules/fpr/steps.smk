# Group FPR gaps on template probes (papers 002 and 004, docs/methods.md section 3): one job per
# (model, classifier) classifies every probe set, so a model loads, and a soft prompt is
# trained, once per run.


wildcard_constraints:
    probe=alternatives(FPR_PROBES),
    classifier=alternatives(FPR_CLASSIFIERS),


rule fpr_classify:
    input:
        files=fpr_classify_files,
    output:
        predictions=expand(predictions("{probe}", "{{model}}", "{{classifier}}"), probe=FPR_PROBES),
    log:
        "logs/fpr/classify/{model}/{classifier}.log",
    benchmark:
        "benchmarks/out/fpr_classify/{model}/{classifier}.tsv"
    conda:
        "../../environment.yml"
    threads: model_resource("models", "threads")
    resources:
        mem_mb=model_resource("models", "mem_mb"),
        gpu=model_resource("models", "gpu"),
        api=model_resource("models", "api"),
    params:
        model=model_entry("models"),
        classifier=fpr_classifier_params,
        probes=config["fpr"]["probes"],
        settings=settings_params(ClassifySettings),
        outputs=fpr_predictions_by_probe,
        cache_dir=config["cache_dir"],
    script:
        "../../workflow/scripts/fpr/classify.py"


rule fpr_gaps:
    input:
        predictions=fpr_probe_predictions,
    output:
        **step_outputs(fpr_outputs, "gaps"),
    log:
        "logs/fpr/gaps_{probe}.log",
    localrule: True
    conda:
        "../../environment.yml"
    params:
        settings=settings_params(GapSettings),
        pairs=COMPARISONS.params(),
    script:
        "../../workflow/scripts/fpr/gaps.py"


rule fpr_summary:
    input:
        **when_compared(comparisons=expand(fpr_probe_output("comparisons"), probe=FPR_PROBES)),
        gaps=expand(fpr_probe_output("gaps"), probe=FPR_PROBES),
        predictions=fpr_all_predictions,
    output:
        **step_outputs(fpr_outputs, "summary"),
    log:
        "logs/fpr/summary.log",
    localrule: True
    conda:
        "../../environment.yml"
    params:
        gaps=fpr_gaps_by_probe,
        comparisons=fpr_comparisons_by_probe,
        predictions=fpr_predictions_of_probes,
        settings=settings_params(SummarySettings),
    script:
        "../../workflow/scripts/fpr/summary.py"

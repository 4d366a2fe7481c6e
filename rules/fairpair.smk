# FairPair (paper 001, docs/methods.md section 2): prompts -> continuations of x and phi(x) ->
# perturbed pairs -> B, V, F per prompt -> summary per model.


rule fairpair_prompts:
    input:
        files=fairpair_prompt_files,
    output:
        prompts="results/fairpair/prompts.parquet",
    params:
        settings=settings_params(PromptSettings),
    conda:
        "../environment.yml"
    log:
        "logs/fairpair/prompts.log",
    script:
        "../workflow/scripts/fairpair_prompts.py"


rule fairpair_generate:
    input:
        prompts="results/fairpair/prompts.parquet",
    output:
        continuations="results/fairpair/continuations/{model}.parquet",
    params:
        model=model_entry("models"),
        settings=settings_params(SamplingSettings),
        cache_dir=config["cache_dir"],
    threads: model_resource("models", "threads")
    resources:
        mem_mb=model_resource("models", "mem_mb"),
        gpu=model_resource("models", "gpu"),
        api=model_resource("models", "api"),
    conda:
        "../environment.yml"
    log:
        "logs/fairpair/generate/{model}.log",
    benchmark:
        "benchmarks/out/fairpair_generate/{model}.tsv"
    script:
        "../workflow/scripts/fairpair_generate.py"


rule fairpair_pairs:
    input:
        prompts="results/fairpair/prompts.parquet",
        continuations="results/fairpair/continuations/{model}.parquet",
        files=fairpair_perturbation_files,
    output:
        pairs="results/fairpair/pairs/{model}.parquet",
        rejections="results/fairpair/pairs/{model}_rejections.csv",
    params:
        settings=settings_params(PerturbationSettings),
        perturber=perturber_entry,
        cache_dir=config["cache_dir"],
    threads: perturbation_resource("threads")
    resources:
        mem_mb=perturbation_resource("mem_mb"),
        gpu=perturbation_resource("gpu"),
        api=perturbation_resource("api"),
    conda:
        "../environment.yml"
    log:
        "logs/fairpair/pairs/{model}.log",
    script:
        "../workflow/scripts/fairpair_pairs.py"


rule fairpair_score:
    input:
        pairs="results/fairpair/pairs/{model}.parquet",
    output:
        scores="results/fairpair/{model}.csv",
        null="results/fairpair/null/{model}.parquet",
        ngrams="results/fairpair/{model}_ngrams.csv",
        ngrams_plot=report("results/fairpair/{model}_ngrams.png", caption="../workflow/report/ngrams.rst", category="FairPair"),
    params:
        settings=settings_params(ScoreSettings),
        # The table's columns: scores written before a column was added are scored again, not read and refused.
        columns=PROMPT_SCORE_COLUMNS,
    conda:
        "../environment.yml"
    log:
        "logs/fairpair/score/{model}.log",
    script:
        "../workflow/scripts/fairpair_score.py"


rule fairpair_summary:
    input:
        scores=expand("results/fairpair/{model}.csv", model=FAIRPAIR_MODELS),
        null=expand("results/fairpair/null/{model}.parquet", model=FAIRPAIR_MODELS),
        rejections=expand("results/fairpair/pairs/{model}_rejections.csv", model=FAIRPAIR_MODELS),
    output:
        summary="results/fairpair/summary.csv",
        plot=report("results/fairpair/summary.png", caption="../workflow/report/fairpair.rst", category="FairPair"),
        rejections="results/fairpair/perturbation_rejections.csv",
        comparisons="results/fairpair/comparisons.csv",
        comparisons_plot=report(
            "results/fairpair/comparisons.png", caption="../workflow/report/comparisons.rst", category="FairPair"
        ),
        variance="results/fairpair/variance.csv",
        variance_plot=report(
            "results/fairpair/variance.png", caption="../workflow/report/fairpair_variance.rst", category="FairPair"
        ),
        tables_page=report(
            "results/fairpair/summary.html", caption="../workflow/report/fairpair_tables.rst", category="FairPair"
        ),
    params:
        scores=fairpair_scores_by_model,
        null=fairpair_null_by_model,
        rejections=fairpair_rejections_by_model,
        settings=settings_params(BootstrapSettings),
        comparison=settings_params(ComparisonSettings),
    conda:
        "../environment.yml"
    log:
        "logs/fairpair/summary.log",
    script:
        "../workflow/scripts/fairpair_summary.py"

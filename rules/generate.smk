# Prompt sets -> continuations, one job per (model, metric, axis): the model loads once per job.


rule generate:
    input:
        prompts="results/prompts/sets/{metric}/{axis}.parquet",
    output:
        continuations="results/continuations/{model}/{metric}/{axis}.parquet",
    params:
        model=model_entry("models"),
        settings=settings_params(GenerationSettings),
        cache_dir=config["cache_dir"],
    threads: model_resource("models", "threads")
    resources:
        mem_mb=model_resource("models", "mem_mb"),
        gpu=model_resource("models", "gpu"),
        api=model_resource("models", "api"),
    conda:
        "../environment.yml"
    log:
        "logs/generate/{model}/{metric}/{axis}.log",
    benchmark:
        "benchmarks/out/generate/{model}/{metric}/{axis}.tsv"
    script:
        "../workflow/scripts/generate.py"

# Original prompts -> one prompt set per paraphraser and seed (paper 000, appendix A.4), one job per
# (paraphraser, axis) for every metric of the axis: the paraphraser loads once per job. A rule per
# axis (paraphrase_<axis>), since each axis has its own metrics.

for _axis in AXES:

    rule:
        name:
            f"paraphrase_{_axis}"
        input:
            prompts=[f"results/prompts/original/{metric}/{_axis}.parquet" for metric in metrics_of(_axis)],
            templates=paraphrase_templates,
        output:
            paraphrases=[f"results/prompts/paraphrased/{{paraphraser}}/{metric}/{_axis}.parquet"
                         for metric in metrics_of(_axis)],
            rejections=[f"results/prompts/paraphrased/{{paraphraser}}/{metric}/{_axis}_rejections.csv"
                        for metric in metrics_of(_axis)],
        params:
            model=model_entry("paraphrasers"),
            settings=settings_params(ParaphraseSettings),
            cache_dir=config["cache_dir"],
        threads: model_resource("paraphrasers", "threads")
        resources:
            mem_mb=model_resource("paraphrasers", "mem_mb"),
            gpu=model_resource("paraphrasers", "gpu"),
            api=model_resource("paraphrasers", "api"),
        conda:
            "../environment.yml"
        log:
            f"logs/paraphrase/{{paraphraser}}/{_axis}.log",
        benchmark:
            f"benchmarks/out/paraphrase/{{paraphraser}}/{_axis}.tsv"
        script:
            "../workflow/scripts/paraphrase.py"


rule prompt_sets:
    input:
        original="results/prompts/original/{metric}/{axis}.parquet",
        paraphrases=paraphrase_outputs,
    output:
        prompts="results/prompts/sets/{metric}/{axis}.parquet",
    conda:
        "../environment.yml"
    log:
        "logs/prompts/sets/{metric}/{axis}.log",
    script:
        "../workflow/scripts/prompt_sets.py"


rule rejections:
    input:
        tables=rejection_tables,
    output:
        table="results/prompts/rejections.csv",
    conda:
        "../environment.yml"
    log:
        "logs/prompts/rejections.log",
    script:
        "../workflow/scripts/rejections.py"

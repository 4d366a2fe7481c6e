# Original prompts -> one prompt set per paraphraser and seed (paper 000, appendix A.4).


rule paraphrase:
    input:
        prompts="results/prompts/original/{metric}/{axis}.parquet",
        templates=paraphrase_templates,
    output:
        paraphrases="results/prompts/paraphrased/{paraphraser}/{metric}/{axis}.parquet",
        rejections="results/prompts/paraphrased/{paraphraser}/{metric}/{axis}_rejections.csv",
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
        "logs/paraphrase/{paraphraser}/{metric}/{axis}.log",
    benchmark:
        "benchmarks/out/paraphrase/{paraphraser}/{metric}/{axis}.tsv"
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

# Datasets -> the original prompt table of each metric and axis.


# Where Snakemake runs, never as a cluster job: it needs the internet, which compute nodes may lack.
rule download_dataset:
    localrule: True
    output:
        folder=directory("data/downloads/{metric}"),
    params:
        url=dataset_url,
    conda:
        "../environment.yml"
    log:
        "logs/data/download_{metric}.log",
    script:
        "../workflow/scripts/download_dataset.py"


rule original_prompts:
    localrule: True
    input:
        files=dataset_inputs,
    output:
        prompts="results/prompts/original/{metric}/{axis}.parquet",
        summary="results/prompts/original/{metric}/{axis}_summary.csv",
    params:
        data_dir=data_dir,
        settings=loader_params,
    conda:
        "../environment.yml"
    log:
        "logs/prompts/original/{metric}/{axis}.log",
    script:
        "../workflow/scripts/original_prompts.py"


rule prompt_summary:
    localrule: True
    input:
        summaries=prompt_summaries,
    output:
        table="results/prompts/summary.csv",
    conda:
        "../environment.yml"
    log:
        "logs/prompts/summary.log",
    script:
        "../workflow/scripts/prompt_summary.py"

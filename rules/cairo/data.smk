# Datasets -> the original prompt table of each metric and axis.


# Where Snakemake runs, never as a cluster job: it needs the internet, which compute nodes may lack.
rule download_dataset:
    output:
        folder=directory("data/downloads/{metric}"),
    log:
        "logs/data/download_{metric}.log",
    localrule: True
    conda:
        "../../environment.yml"
    params:
        url=dataset_url,
    script:
        "../../workflow/scripts/cairo/download_dataset.py"


rule original_prompts:
    input:
        files=dataset_inputs,
    output:
        **step_outputs(cairo_outputs, "original_prompts"),
    log:
        "logs/prompts/original/{metric}/{axis}.log",
    localrule: True
    conda:
        "../../environment.yml"
    params:
        data_dir=data_dir,
        settings=loader_params,
    script:
        "../../workflow/scripts/cairo/original_prompts.py"


rule prompt_summary:
    input:
        summaries=prompt_summaries,
    output:
        **step_outputs(cairo_outputs, "prompt_summary"),
    log:
        "logs/prompts/summary.log",
    localrule: True
    conda:
        "../../environment.yml"
    script:
        "../../workflow/scripts/cairo/prompt_summary.py"

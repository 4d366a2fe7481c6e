# Original prompts -> one prompt set per paraphraser and seed (paper 000, appendix A.4), one job per
# (paraphraser, axis) for every metric of the axis: the paraphraser loads once per job. A rule per
# axis (paraphrase_<axis>), since each axis has its own metrics.

for _axis in AXES:

    rule:
        name:
            f"paraphrase_{_axis}"
        input:
            prompts=cairo_outputs.per_metric("original_prompts", metrics_of(_axis), axis=_axis)["prompts"],
            templates=paraphrase_templates,
        output:
            **cairo_outputs.per_metric("paraphrase", metrics_of(_axis), axis=_axis),
        log:
            f"logs/paraphrase/{{paraphraser}}/{_axis}.log",
        benchmark:
            f"benchmarks/out/paraphrase/{{paraphraser}}/{_axis}.tsv"
        conda:
            "../../environment.yml"
        threads: model_resource("paraphrasers", "threads")
        resources:
            mem_mb=model_resource("paraphrasers", "mem_mb"),
            gpu=model_resource("paraphrasers", "gpu"),
            api=model_resource("paraphrasers", "api"),
        params:
            tables=files_of(_axis, paraphrase_files),
            model=model_entry("paraphrasers"),
            settings=settings_params(ParaphraseSettings),
            cache_dir=config["cache_dir"],
        script:
            "../../workflow/scripts/cairo/paraphrase.py"


rule prompt_sets:
    input:
        original=cairo_outputs.of_step("original_prompts")["prompts"],
        paraphrases=paraphrase_outputs,
    output:
        **step_outputs(cairo_outputs, "prompt_sets"),
    log:
        "logs/prompts/sets/{metric}/{axis}.log",
    localrule: True
    conda:
        "../../environment.yml"
    script:
        "../../workflow/scripts/cairo/prompt_sets.py"


rule rejections:
    input:
        tables=rejection_tables,
    output:
        **step_outputs(cairo_outputs, "rejections"),
    log:
        "logs/prompts/rejections.log",
    localrule: True
    conda:
        "../../environment.yml"
    script:
        "../../workflow/scripts/cairo/rejections.py"

# Prompt sets -> continuations, one job per (model, axis) for every metric of the axis: the model
# loads once per job. A rule per axis (generate_<axis>), since each axis has its own metrics.

for _axis in AXES:

    rule:
        name:
            f"generate_{_axis}"
        input:
            prompts=cairo_outputs.per_metric("prompt_sets", metrics_of(_axis), axis=_axis)["prompts"],
        output:
            **cairo_outputs.per_metric("generate", metrics_of(_axis), axis=_axis),
        log:
            f"logs/generate/{{model}}/{_axis}.log",
        benchmark:
            f"benchmarks/out/generate/{{model}}/{_axis}.tsv"
        conda:
            "../../environment.yml"
        threads: model_resource("models", "threads")
        resources:
            mem_mb=model_resource("models", "mem_mb"),
            gpu=model_resource("models", "gpu"),
            api=model_resource("models", "api"),
        params:
            tables=files_of(_axis, generate_files),
            model=model_entry("models"),
            settings=settings_params(GenerationSettings),
            cache_dir=config["cache_dir"],
        script:
            "../../workflow/scripts/cairo/generate.py"

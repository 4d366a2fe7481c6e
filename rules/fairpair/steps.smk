# FairPair (paper 001, docs/methods.md section 2): prompts -> continuations of x and phi(x) ->
# perturbed pairs -> B, V, F per prompt -> summary per model.


rule fairpair_prompts:
    input:
        files=fairpair_prompt_files,
    output:
        **step_outputs(fairpair_outputs, "prompts"),
    log:
        "logs/fairpair/prompts.log",
    localrule: True
    conda:
        "../../environment.yml"
    params:
        settings=settings_params(PromptSettings),
    script:
        "../../workflow/scripts/fairpair/prompts.py"


rule fairpair_generate:
    input:
        prompts=fairpair_output("prompts"),
    output:
        **step_outputs(fairpair_outputs, "generate"),
    log:
        "logs/fairpair/generate/{model}.log",
    benchmark:
        "benchmarks/out/fairpair_generate/{model}.tsv"
    conda:
        "../../environment.yml"
    threads: model_resource("models", "threads")
    resources:
        mem_mb=model_resource("models", "mem_mb"),
        gpu=model_resource("models", "gpu"),
        api=model_resource("models", "api"),
    params:
        model=model_entry("models"),
        settings=settings_params(SamplingSettings),
        cache_dir=config["cache_dir"],
    script:
        "../../workflow/scripts/fairpair/generate.py"


rule fairpair_pairs:
    input:
        prompts=fairpair_output("prompts"),
        continuations=fairpair_output("continuations"),
        files=fairpair_perturbation_files,
    output:
        **step_outputs(fairpair_outputs, "pairs"),
    log:
        "logs/fairpair/pairs/{model}.log",
    conda:
        "../../environment.yml"
    threads: perturbation_resource("threads")
    resources:
        mem_mb=perturbation_resource("mem_mb"),
        gpu=perturbation_resource("gpu"),
        api=perturbation_resource("api"),
    params:
        settings=settings_params(PerturbationSettings),
        perturber=perturber_entry,
        cache_dir=config["cache_dir"],
    script:
        "../../workflow/scripts/fairpair/pairs.py"


rule fairpair_score:
    input:
        pairs=fairpair_output("pairs"),
    output:
        **step_outputs(fairpair_outputs, "score"),
    log:
        "logs/fairpair/score/{model}.log",
    localrule: True
    conda:
        "../../environment.yml"
    params:
        settings=settings_params(ScoreSettings),
        # The table's columns: scores written before a column was added are scored again, not read and refused.
        columns=PROMPT_SCORE_COLUMNS,
    script:
        "../../workflow/scripts/fairpair/score.py"


rule fairpair_summary:
    input:
        scores=expand(fairpair_output("scores"), model=FAIRPAIR_MODELS),
        null=expand(fairpair_output("null"), model=FAIRPAIR_MODELS),
        rejections=expand(fairpair_output("pair_rejections"), model=FAIRPAIR_MODELS),
    output:
        **step_outputs(fairpair_outputs, "summary"),
    log:
        "logs/fairpair/summary.log",
    localrule: True
    conda:
        "../../environment.yml"
    params:
        scores=fairpair_by_model("scores"),
        null=fairpair_by_model("null"),
        rejections=fairpair_by_model("pair_rejections"),
        settings=settings_params(BootstrapSettings),
        comparison=settings_params(ComparisonSettings),
        pairs=COMPARISONS.params(),
    script:
        "../../workflow/scripts/fairpair/summary.py"

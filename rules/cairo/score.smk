# Continuations -> scores of each scorer (toxicity by default), cached by text; with counterfactual
# rescoring, the scored variants of the continuations that name their own group, and neutral scores
# (docs/methods.md section 5.5).


rule score:
    input:
        continuations="results/continuations/{model}/{metric}/{axis}.parquet",
        lexicon=scorer_files,
    output:
        scores="results/scores/{scorer}/{model}/{metric}/{axis}.parquet",
    log:
        "logs/score/{scorer}/{model}/{metric}/{axis}.log",
    benchmark:
        "benchmarks/out/score/{scorer}/{model}/{metric}/{axis}.tsv"
    conda:
        "../../environment.yml"
    resources:
        gpu=score_gpu,
    params:
        settings=scoring_params,
        cache_dir=config["cache_dir"],
    script:
        "../../workflow/scripts/score.py"


rule counterfactual:
    input:
        continuations="results/continuations/{model}/{metric}/{axis}.parquet",
        lexicon=config["scoring"]["identity_lexicon"],
        files=scorer_files,
    output:
        variants="results/scorer_bias/{scorer}/variants/{model}/{metric}/{axis}.parquet",
    log:
        "logs/counterfactual/{scorer}/{model}/{metric}/{axis}.log",
    conda:
        "../../environment.yml"
    resources:
        gpu=score_gpu,
    params:
        settings=scoring_params,
        cache_dir=config["cache_dir"],
    script:
        "../../workflow/scripts/counterfactual.py"


rule neutral_scores:
    input:
        scores="results/scores/{scorer}/{model}/{metric}/{axis}.parquet",
        variants="results/scorer_bias/{scorer}/variants/{model}/{metric}/{axis}.parquet",
    output:
        # NEUTRAL_SUFFIX (biasflow.cairo.continuation_steps): the label the neutral scores carry in their tables too.
        scores=f"results/scores/{{scorer}}{NEUTRAL_SUFFIX}/{{model}}/{{metric}}/{{axis}}.parquet",
    log:
        f"logs/score/{{scorer}}{NEUTRAL_SUFFIX}/{{model}}/{{metric}}/{{axis}}.log",
    localrule: True
    conda:
        "../../environment.yml"
    script:
        "../../workflow/scripts/neutral_scores.py"

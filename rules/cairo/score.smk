# Continuations -> scores of each scorer (toxicity by default), cached by text; with counterfactual
# rescoring, the scored variants of the continuations that name their own group, and neutral scores
# (docs/methods.md section 5.5).


rule score:
    input:
        continuations=cairo_outputs.of_step("generate")["continuations"],
        lexicon=scorer_files,
    output:
        **step_outputs(cairo_outputs, "score"),
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
        "../../workflow/scripts/cairo/score.py"


rule counterfactual:
    input:
        continuations=cairo_outputs.of_step("generate")["continuations"],
        lexicon=CAIRO["scoring"]["identity_lexicon"],
        files=scorer_files,
    output:
        **step_outputs(cairo_outputs, "counterfactual"),
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
        "../../workflow/scripts/cairo/counterfactual.py"


rule neutral_scores:
    input:
        scores=cairo_outputs.of_step("score")["scores"],
        variants=cairo_outputs.of_step("counterfactual")["variants"],
    output:
        # Under the label {scorer}<NEUTRAL_SUFFIX>, which the neutral scores carry in their tables too.
        **step_outputs(cairo_outputs, "neutral_scores"),
    log:
        f"logs/score/{{scorer}}{NEUTRAL_SUFFIX}/{{model}}/{{metric}}/{{axis}}.log",
    localrule: True
    conda:
        "../../environment.yml"
    script:
        "../../workflow/scripts/cairo/neutral_scores.py"

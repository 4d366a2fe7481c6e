# Continuations -> scores of one scorer (toxicity by default), cached by text.


rule score:
    input:
        continuations="results/continuations/{model}/{metric}/{axis}.parquet",
        lexicon=scorer_files,
    output:
        scores="results/scores/{scorer}/{model}/{metric}/{axis}.parquet",
    params:
        settings=settings_params(ScoringSettings),
        cache_dir=config["cache_dir"],
    resources:
        gpu=SCORE_GPU,
    conda:
        "../environment.yml"
    log:
        "logs/score/{scorer}/{model}/{metric}/{axis}.log",
    script:
        "../workflow/scripts/score.py"

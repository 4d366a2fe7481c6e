from biasflow.cairo.steps import score
from biasflow.snakemake_adapter import run

run(
    lambda sm: score(
        continuations_path=sm.input.continuations, scoring=sm.params.scoring, cache_dir=sm.params.cache_dir,
        out=sm.output.scores,
    ),
    snakemake,
)

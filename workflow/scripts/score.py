from biasflow.pipeline import score
from biasflow.workflow import run

run(lambda sm: score(sm.input.continuations, sm.params.scoring, sm.params.cache_dir, sm.output.scores), snakemake)

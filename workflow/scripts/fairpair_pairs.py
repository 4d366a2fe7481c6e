from biasflow.fairpair_steps import pairs
from biasflow.workflow import run

run(
    lambda sm: pairs(
        sm.input.prompts, sm.input.continuations, sm.params.perturbation, sm.params.cache_dir,
        sm.output.pairs, sm.output.rejections,
    ),
    snakemake,
)

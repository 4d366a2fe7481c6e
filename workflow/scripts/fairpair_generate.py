from biasflow.fairpair_steps import generate
from biasflow.workflow import run

run(
    lambda sm: generate(sm.input.prompts, sm.params.model, sm.params.settings, sm.params.cache_dir, sm.output.continuations),
    snakemake,
)

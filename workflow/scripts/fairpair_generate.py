from biasflow.fairpair.steps import generate
from biasflow.snakemake_adapter import run

run(
    lambda sm: generate(
        prompts_path=sm.input.prompts, entry=sm.params.model, settings=sm.params.settings,
        cache_dir=sm.params.cache_dir, out=sm.output.continuations,
    ),
    snakemake,
)

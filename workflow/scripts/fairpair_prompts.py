from biasflow.fairpair.steps import prompts
from biasflow.snakemake_adapter import run

run(lambda sm: prompts(settings=sm.params.settings, out=sm.output.prompts), snakemake)

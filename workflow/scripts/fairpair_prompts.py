from biasflow.fairpair_steps import prompts
from biasflow.workflow import run

run(lambda sm: prompts(sm.params.settings, sm.output.prompts), snakemake)

from biasflow.pipeline import prompt_sets
from biasflow.workflow import run

run(lambda sm: prompt_sets(sm.input.original, list(sm.input.paraphrases), sm.output.prompts), snakemake)

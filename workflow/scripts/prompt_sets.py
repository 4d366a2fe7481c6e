from biasflow.cairo.steps import prompt_sets
from biasflow.snakemake_adapter import run

run(
    lambda sm: prompt_sets(
        original_path=sm.input.original, paraphrase_paths=list(sm.input.paraphrases), out=sm.output.prompts
    ),
    snakemake,
)

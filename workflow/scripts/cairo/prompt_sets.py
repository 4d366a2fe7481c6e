from biasflow.cairo.steps import prompt_sets
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: prompt_sets(
            original_path=sm.input.original, paraphrase_paths=list(sm.input.paraphrases), outputs=dict(sm.output)
        ),
        snakemake,
    )

from biasflow.cairo.continuation_steps import neutral
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: neutral(scores_path=sm.input.scores, variants_path=sm.input.variants, outputs=dict(sm.output)),
        snakemake,
    )

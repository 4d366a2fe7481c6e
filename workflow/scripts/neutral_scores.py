from biasflow.snakemake_adapter import run
from biasflow.steps import neutral

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: neutral(scores_path=sm.input.scores, variants_path=sm.input.variants, out=sm.output.scores),
        snakemake,
    )

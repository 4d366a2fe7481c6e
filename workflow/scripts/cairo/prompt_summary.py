from biasflow.cairo.datasets import combine_summaries
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(lambda sm: combine_summaries(paths=list(sm.input.summaries), outputs=dict(sm.output)), snakemake)

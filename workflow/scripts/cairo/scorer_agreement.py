from biasflow.cairo.steps import scorer_agreement
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: scorer_agreement(headline_paths=sm.params.tables, outputs=dict(sm.output)),
        snakemake,
    )

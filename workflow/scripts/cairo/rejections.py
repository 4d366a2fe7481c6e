from biasflow.cairo.steps import collect_rejections
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(lambda sm: collect_rejections(paths=list(sm.input.tables), outputs=dict(sm.output)), snakemake)

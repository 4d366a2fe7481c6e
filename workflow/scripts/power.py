from biasflow.power import plan_sources
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: plan_sources(
            method=sm.wildcards.method,
            sources=sm.params.sources,
            settings=sm.params.settings,
            outputs=dict(sm.output),
        ),
        snakemake,
    )

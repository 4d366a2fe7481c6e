from biasflow.cairo.datasets import LoaderSettings, write_prompts
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: write_prompts(
            data_dir=sm.params.data_dir,
            metric=sm.wildcards.metric,
            axis=sm.wildcards.axis,
            settings=LoaderSettings.from_params(sm.params.settings),
            outputs=dict(sm.output),
        ),
        snakemake,
    )

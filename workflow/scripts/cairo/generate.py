from biasflow.cairo.continuation_steps import generate
from biasflow.cairo.continuations import GenerationSettings
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: generate(
            tables=sm.params.tables,
            entry=sm.params.model,
            settings=GenerationSettings.from_params(sm.params.settings),
            cache_dir=sm.params.cache_dir,
        ),
        snakemake,
    )

from biasflow.fairpair.steps import SamplingSettings, generate
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: generate(
            prompts_path=sm.input.prompts,
            entry=sm.params.model,
            settings=SamplingSettings.from_params(sm.params.settings),
            cache_dir=sm.params.cache_dir,
            outputs=dict(sm.output),
        ),
        snakemake,
    )

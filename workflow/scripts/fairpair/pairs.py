from biasflow.fairpair.perturbation import PerturbationSettings
from biasflow.fairpair.steps import pairs
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: pairs(
            prompts_path=sm.input.prompts,
            continuations_path=sm.input.continuations,
            model=sm.wildcards.model,
            settings=PerturbationSettings.from_params(sm.params.settings),
            perturber=sm.params.perturber,
            cache_dir=sm.params.cache_dir,
            outputs=dict(sm.output),
        ),
        snakemake,
    )

from biasflow.cairo.continuation_steps import score
from biasflow.scorers.table import ScoringSettings
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: score(
            continuations_path=sm.input.continuations,
            settings=ScoringSettings.from_params(sm.params.settings),
            cache_dir=sm.params.cache_dir,
            outputs=dict(sm.output),
        ),
        snakemake,
    )

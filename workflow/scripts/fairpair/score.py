from biasflow.fairpair.scores import ScoreSettings
from biasflow.fairpair.steps import score
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: score(
            pairs_path=sm.input.pairs,
            model=sm.wildcards.model,
            settings=ScoreSettings.from_params(sm.params.settings),
            outputs=dict(sm.output),
        ),
        snakemake,
    )

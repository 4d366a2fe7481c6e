from biasflow.cairo.continuation_steps import counterfactual
from biasflow.scorers.table import ScoringSettings
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: counterfactual(
            continuations_path=sm.input.continuations,
            settings=ScoringSettings.from_params(sm.params.settings),
            lexicon_path=sm.input.lexicon,
            axis=sm.wildcards.axis,
            cache_dir=sm.params.cache_dir,
            outputs=dict(sm.output),
        ),
        snakemake,
    )

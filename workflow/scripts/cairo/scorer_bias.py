from biasflow.cairo.scorer_bias import ScorerBiasSettings
from biasflow.cairo.steps import scorer_bias
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: scorer_bias(
            continuation_paths=list(sm.input.continuations),
            score_paths=list(sm.input.scores),
            variant_paths=list(sm.input.variants),
            scorer=sm.wildcards.scorer,
            settings=ScorerBiasSettings.from_params(sm.params.settings),
            outputs=dict(sm.output),
        ),
        snakemake,
    )

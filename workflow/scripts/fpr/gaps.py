from biasflow.fpr.steps import GapSettings, gaps
from biasflow.model_pairs import PairChoice
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: gaps(
            prediction_paths=list(sm.input.predictions),
            settings=GapSettings.from_params(sm.params.settings),
            outputs=dict(sm.output),
            pairs=PairChoice.from_params(sm.params.pairs),
        ),
        snakemake,
    )

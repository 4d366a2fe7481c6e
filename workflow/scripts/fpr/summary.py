from biasflow.fpr.steps import SummarySettings, summary
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: summary(
            gap_paths=sm.params.gaps,
            prediction_paths=sm.params.predictions,
            comparison_paths=sm.params.comparisons,
            settings=SummarySettings.from_params(sm.params.settings),
            outputs=dict(sm.output),
        ),
        snakemake,
    )

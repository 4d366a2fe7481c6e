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
            spans_out=sm.output.spans,
            net_out=sm.output.net,
            markedness_out=sm.output.markedness,
            spans_plot=sm.output.spans_plot,
            markedness_plot=sm.output.markedness_plot,
            variance_out=sm.output.variance,
            variance_plot=sm.output.variance_plot,
            tables_page=sm.output.tables_page,
        ),
        snakemake,
    )

from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.steps import cairo_select
from biasflow.model_pairs import PairChoice
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: cairo_select(
            stats_paths=[sm.input.stats],
            settings=SearchSettings.from_params(sm.params.settings),
            table_out=sm.output.table,
            curve_out=sm.output.curve,
            comparisons_out=sm.output.get("comparisons"),
            summary_out=sm.output.summary,
            curve_plot=sm.output.curve_plot,
            bias_plot=sm.output.bias_plot,
            shares_plot=sm.output.shares_plot,
            comparisons_plot=sm.output.get("comparisons_plot"),
            pairs=PairChoice.from_params(sm.params.pairs),
            variance_out=sm.output.variance,
            variance_plot=sm.output.variance_plot,
            tables_page=sm.output.tables_page,
            prompt_summary=sm.input.prompts,
        ),
        snakemake,
    )

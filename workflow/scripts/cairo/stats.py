from biasflow.cairo.stats import StatsSettings
from biasflow.cairo.steps import cairo_stats
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: cairo_stats(
            continuation_paths=list(sm.input.continuations),
            score_paths=list(sm.input.scores),
            settings=StatsSettings.from_params(sm.params.settings),
            outputs=dict(sm.output),
        ),
        snakemake,
    )

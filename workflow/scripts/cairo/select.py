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
            outputs=dict(sm.output),
            pairs=PairChoice.from_params(sm.params.pairs),
            prompt_summary=sm.input.prompts,
        ),
        snakemake,
    )

from biasflow.pipeline import cairo_stats
from biasflow.workflow import run

run(
    lambda sm: cairo_stats(
        list(sm.input.continuations), list(sm.input.scores), sm.params.scorer, sm.params.normalise,
        sm.params.subgroups, sm.output.stats, sm.output.bias, sm.output.plot,
    ),
    snakemake,
)

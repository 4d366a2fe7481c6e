from biasflow.pipeline import cairo_select
from biasflow.workflow import run

run(lambda sm: cairo_select([sm.input.stats], sm.params.selection, dict(sm.output.items())), snakemake)

from biasflow.cairo.steps import collect_rejections
from biasflow.snakemake_adapter import run

run(lambda sm: collect_rejections(paths=list(sm.input.tables), out=sm.output.table), snakemake)

from biasflow.pipeline import collect_rejections
from biasflow.workflow import run

run(lambda sm: collect_rejections(list(sm.input), sm.output.table), snakemake)

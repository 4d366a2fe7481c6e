from biasflow.datasets import combine_summaries
from biasflow.snakemake_adapter import run

run(lambda sm: combine_summaries(paths=list(sm.input.summaries), out=sm.output.table), snakemake)

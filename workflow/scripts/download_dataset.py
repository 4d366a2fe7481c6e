from biasflow.pipeline import fetch_dataset
from biasflow.workflow import run

run(lambda sm: fetch_dataset(sm.wildcards.metric, sm.params.url, sm.output[0]), snakemake)

from biasflow.datasets import download_dataset
from biasflow.snakemake_adapter import run

run(
    lambda sm: download_dataset(metric=sm.wildcards.metric, base_url=sm.params.url, dest_dir=sm.output.folder),
    snakemake,
)

from biasflow.cairo.datasets import download_dataset
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: download_dataset(metric=sm.wildcards.metric, base_url=sm.params.url, dest_dir=sm.output.folder),
        snakemake,
    )

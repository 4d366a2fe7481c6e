from biasflow.datasets import write_prompts
from biasflow.snakemake_adapter import run

run(
    lambda sm: write_prompts(
        data_dir=sm.params.data_dir, metric=sm.wildcards.metric, axis=sm.wildcards.axis, loader=sm.params.loader,
        out=sm.output.prompts, summary_out=sm.output.summary,
    ),
    snakemake,
)

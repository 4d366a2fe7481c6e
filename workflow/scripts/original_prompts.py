from biasflow.pipeline import original_prompts
from biasflow.workflow import run

run(
    lambda sm: original_prompts(sm.params.data_dir, sm.wildcards.metric, sm.wildcards.axis, sm.params.loader, sm.output.prompts),
    snakemake,
)

from biasflow.pipeline import paraphrase
from biasflow.workflow import run

run(
    lambda sm: paraphrase(
        sm.input.prompts, sm.params.model, sm.params.paraphrase, sm.params.cache_dir,
        sm.output.paraphrases, sm.output.rejections,
    ),
    snakemake,
)

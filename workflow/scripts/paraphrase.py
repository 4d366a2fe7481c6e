from biasflow.cairo.steps import paraphrase
from biasflow.snakemake_adapter import run

run(
    lambda sm: paraphrase(
        prompts_path=sm.input.prompts, entry=sm.params.model, settings=sm.params.paraphrase,
        cache_dir=sm.params.cache_dir, out=sm.output.paraphrases, rejections_out=sm.output.rejections,
    ),
    snakemake,
)

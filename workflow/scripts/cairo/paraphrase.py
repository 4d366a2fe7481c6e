from biasflow.cairo.paraphrase import ParaphraseSettings
from biasflow.cairo.steps import paraphrase
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: paraphrase(
            tables=sm.params.tables,
            entry=sm.params.model,
            settings=ParaphraseSettings.from_params(sm.params.settings),
            cache_dir=sm.params.cache_dir,
        ),
        snakemake,
    )

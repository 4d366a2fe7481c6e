from biasflow.fpr.steps import ClassifySettings, classify
from biasflow.fpr.tuning import ClassifierSettings
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: classify(
            entry=sm.params.model,
            classifier=ClassifierSettings.from_params(sm.params.classifier),
            probes=sm.params.probes,
            settings=ClassifySettings.from_params(sm.params.settings),
            cache_dir=sm.params.cache_dir,
            outputs=sm.params.outputs,
        ),
        snakemake,
    )

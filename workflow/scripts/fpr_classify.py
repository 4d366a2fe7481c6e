from biasflow.fpr.steps import classify
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: classify(
            labelled=sm.input.labelled, labelled_format=sm.params.labelled_format, entry=sm.params.model,
            classifier=sm.params.classifier, probes=sm.params.probes, runs=sm.params.runs,
            cache_dir=sm.params.cache_dir, outputs=list(sm.output.predictions),
        ),
        snakemake,
    )

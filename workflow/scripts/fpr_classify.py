from biasflow.fpr_steps import classify
from biasflow.workflow import run

run(
    lambda sm: classify(
        (sm.input.labelled, sm.params.labelled_format), sm.params.model, sm.params.classifier,
        sm.params.probes, sm.params.runs, sm.params.cache_dir, list(sm.output.predictions),
    ),
    snakemake,
)

from biasflow.fpr_steps import gaps
from biasflow.workflow import run

run(
    lambda sm: gaps(
        list(sm.input.predictions), sm.params.interval, sm.params.z, sm.params.accuracy_floor,
        sm.output.gaps, sm.output.accuracy, sm.output.plot,
    ),
    snakemake,
)

from biasflow.fpr_steps import summary
from biasflow.workflow import run

run(
    lambda sm: summary(
        list(sm.input.gaps), list(sm.params.probes), list(sm.input.predictions), sm.params.interval, sm.params.z,
        sm.output.spans, sm.output.net, sm.output.markedness,
    ),
    snakemake,
)

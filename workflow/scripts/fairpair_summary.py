from biasflow.fairpair_steps import summary
from biasflow.workflow import run

run(
    lambda sm: summary(
        list(sm.input.pairs), list(sm.input.scores), list(sm.input.rejections),
        sm.output.summary, sm.output.plot, sm.output.rejections,
    ),
    snakemake,
)

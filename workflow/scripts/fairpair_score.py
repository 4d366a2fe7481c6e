from biasflow.fairpair_steps import score
from biasflow.workflow import run

run(lambda sm: score(sm.input.pairs, sm.params.settings, sm.output.scores, sm.output.ngrams, sm.output.ngrams_plot), snakemake)

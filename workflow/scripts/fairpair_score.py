from biasflow.fairpair.steps import score
from biasflow.snakemake_adapter import run

run(
    lambda sm: score(
        pairs_path=sm.input.pairs, settings=sm.params.settings, out=sm.output.scores, ngrams_out=sm.output.ngrams,
        ngrams_plot=sm.output.ngrams_plot,
    ),
    snakemake,
)

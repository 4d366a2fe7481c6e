from biasflow.fairpair.comparisons import ComparisonSettings
from biasflow.fairpair.scores import BootstrapSettings
from biasflow.fairpair.steps import summary
from biasflow.model_pairs import PairChoice
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: summary(
            score_paths=sm.params.scores,
            null_paths=sm.params.null,
            rejection_paths=sm.params.rejections,
            settings=BootstrapSettings.from_params(sm.params.settings),
            comparison=ComparisonSettings.from_params(sm.params.comparison),
            outputs=dict(sm.output),
            pairs=PairChoice.from_params(sm.params.pairs),
        ),
        snakemake,
    )

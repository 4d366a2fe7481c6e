from biasflow.fairpair.prompts import PromptSettings
from biasflow.fairpair.steps import prompts
from biasflow.snakemake_adapter import run

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(lambda sm: prompts(settings=PromptSettings.from_params(sm.params.settings), outputs=dict(sm.output)), snakemake)

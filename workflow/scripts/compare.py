from biasflow.snakemake_adapter import run
from biasflow.verdict_tables import write_verdicts

# The guard keeps processes that a model engine spawns (vLLM) from running the step again.
if __name__ == "__main__":
    run(
        lambda sm: write_verdicts(
            method_name=sm.wildcards.method,
            baseline=sm.params.baseline,
            candidate=sm.params.candidate,
            comparisons=sm.params.comparisons,
            settings=sm.params.settings,
            margin=sm.params.margin["value"],
            margin_source=sm.params.margin["source"],
            outputs=dict(sm.output),
        ),
        snakemake,
    )

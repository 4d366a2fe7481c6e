# Did the candidate get worse? (docs/methods.md section 7): per pair of the config's `compare` section and per
# method run that evaluates both models, the judged rows and their markdown summary, from each method's own results
# (what its declaration's pair_sources lists). `snakemake --cores N compare` writes them; so does the default
# target, where pairs are given.


rule compare_verdicts:
    input:
        unpack(compare_inputs),
    output:
        table=verdict_output("table"),
        summary=verdict_output("summary"),
        page=report(
            verdict_output("page"),
            caption="../workflow/report/verdicts.rst",
            category="Did the candidate get worse?",
        ),
    log:
        "logs/compare/{pair}/{method}.log",
    wildcard_constraints:
        pair=alternatives(list(COMPARE_PAIRS)),
        method=alternatives(RULE_METHODS),
    localrule: True
    conda:
        "../environment.yml"
    params:
        baseline=compare_models("baseline"),
        candidate=compare_models("candidate"),
        comparisons=compare_comparisons,
        settings=compare_settings,
        margin=compare_margin,
    script:
        "../workflow/scripts/compare.py"


rule compare:
    input:
        compare_targets,
    localrule: True

# Did the candidate get worse? (docs/methods.md section 7): per pair of the config's `compare` section and per
# method run that evaluates both models, the judged rows and their markdown summary, from each method's own results
# (what COMPARE_SOURCES lists). `snakemake --cores N compare` writes them; so does the default target, where pairs
# are given.
# The methods whose rule files say what a pair's comparison reads.
COMPARE_METHODS = [name for name in METHODS if name in COMPARE_SOURCES]


rule compare_verdicts:
    localrule: True
    input:
        unpack(compare_inputs),
    output:
        table=verdict_output("table"),
        summary=verdict_output("summary"),
    params:
        baseline=compare_models("baseline"),
        candidate=compare_models("candidate"),
        comparisons=compare_comparisons,
        settings=compare_settings,
        margin=compare_margin,
    wildcard_constraints:
        pair=alternatives(list(COMPARE_PAIRS)),
        method=alternatives(COMPARE_METHODS),
    conda:
        "../environment.yml"
    log:
        "logs/compare/{pair}/{method}.log",
    script:
        "../workflow/scripts/compare.py"


rule compare:
    localrule: True
    input:
        compare_targets,

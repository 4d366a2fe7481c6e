# The power planner (docs/methods.md section 6): from each method's own results, the smallest
# difference every subgroup could show and the sizes a study needs for power.min_effect.
# The methods with results to plan from: POWER_METHODS (rules/common.smk), whose declarations give their sources.


rule power:
    input:
        unpack(power_inputs),
    output:
        table=power_output("table"),
        page=report(power_output("page"), caption="../workflow/report/power.rst", category="Power"),
    log:
        "logs/power/{method}.log",
    localrule: True
    conda:
        "../environment.yml"
    params:
        sources=power_sources,
        settings=power_params,
    script:
        "../workflow/scripts/power.py"

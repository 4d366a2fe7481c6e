"""The FPR gaps' page in the report: gap spans, net significance and markedness."""

from __future__ import annotations

import pandas as pd

from biasflow.html_tables import Section, write_tables_page


def write_tables(
    spans: pd.DataFrame,
    net: pd.DataFrame,
    markedness: pd.DataFrame,
    comparisons: pd.DataFrame | None,
    variance: pd.DataFrame,
    path,
) -> None:
    """The report's page of FPR-gap tables (docs/methods.md §3.3-3.5, §3.8, §3.9); ``comparisons`` None: no pairs
    were compared (``comparisons.pairs`` none), and its section is left out."""
    write_tables_page(
        path,
        "Group FPR gaps on template probes",
        (
            "Sentiment classifiers built from each model label template sentences about identity groups; a group's "
            "FPR gap is its false-positive rate for the negative (or positive) class minus the mean over the groups of "
            "its attribute, with intervals over runs (docs/methods.md section 3). The forest plots show each gap; "
            "these tables sum them up."
        ),
        [
            Section(
                "Gap spans",
                (
                    "Per classifier, probe set and attribute: the largest minus the smallest group gap (0: every group "
                    "is treated alike); the rows with probe (mean) average the probe sets. Compare the spans of one "
                    "classifier across probe sets: templates that differ only in wording should not move them much. A "
                    "span is positive even with no group difference: *_span_null_q95 is what it reaches 95% of the "
                    "time with the group labels permuted within templates, *_span_p its p-value (docs/methods.md "
                    "section 3.4)."
                ),
                spans,
            ),
            Section(
                "Net significance over models",
                (
                    "Per probe set and group: the number of classifiers whose interval lies wholly above 0 minus those "
                    "wholly below, for each class, out of n_models (the paper's count), and the same count of the gaps "
                    "that stay significant after Holm (_holm) or Benjamini-Hochberg (_bh) correction for the n_tests "
                    "gaps tested: the raw count calls about 5 in 100 gaps significant with no bias at all, so read the "
                    "corrected ones. Large absolute values: a group disfavoured (or favoured) by most classifiers, not "
                    "by one. *_untested counts the classifiers whose gap could not be tested, left out of every count "
                    "and of n_tests: a single run, or runs that all gave the same labels, so there is no run-to-run "
                    "spread to test against (docs/methods.md section 3.3); a 0 in the counts says nothing about those."
                ),
                net,
            ),
            Section(
                "Every pair of systems compared on the same sentences",
                (
                    "Per probe set, attribute and class: is model_a's gap span (measure span), or a group's gap "
                    "(measure gap), smaller than model_b's? difference: model_a's less model_b's, over the templates "
                    "both classified, with a paired 95% interval (one template draw for both systems) and the paired "
                    "randomisation p-value (the two systems' counts swapped template by template), adjusted over the "
                    "probe set's rows of one measure by Holm (p_holm) and Benjamini-Hochberg (p_bh); docs/methods.md "
                    "section 3.8. Two overlapping gap intervals do not say two systems are alike: read this."
                ),
                comparisons,
            ),
            Section(
                "Where each gap would move",
                (
                    "The variance of each gap (the mean over runs) split by source: another probe set for the same "
                    "attribute (sd_probe_sets, empty with one), other templates (sd_templates), an effect a run shares "
                    "over its sentences (sd_runs) and other labels of the same sentences in each run (sd_sentences), "
                    "with each one's share; sd_total is the root of their sum. With one run the templates' part holds "
                    "the sentences' too. The largest share is where more data buys the most (docs/methods.md "
                    "section 3.9)."
                ),
                variance,
            ),
            Section(
                "Markedness",
                (
                    "Each group's FPR minus the FPR of the same sentences with the identity word dropped "
                    "(docs/methods.md section 3.5), with its interval: a group whose mere mention moves the label. A "
                    "dash in a width or p column: no interval and no test, because the runs all agreed (or there was "
                    "one run)."
                ),
                markedness,
            ),
        ],
    )

"""FairPair (Dwivedi-Yu et al., LREC-COLING 2024; docs/methods.md §2).

Counterfactual pairs grounded in one entity: ``prompts`` (Common Sents or a user's file),
``perturbation`` (φ by rules or by an LLM with the paper's filters), ``tokens`` (words and
the Jaccard distance), ``scores`` (B, V, F, the summary and Welch's test), ``ngrams``
(Figure 6), ``plots`` and ``steps`` (the workflow's steps, paths to paths).
"""

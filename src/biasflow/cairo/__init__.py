"""CAIRO (Zayed et al., ACL 2024; docs/methods.md §1).

Prompt sets (``paraphrase``: templates, cleaning, validation), per-set sufficient
statistics and the pooled bias of Eq. 1 (``stats``), prompt-set ``combinations``, the
``selection`` with its held-out check and permutation p-value, the tables users read
(``report``), ``plots`` and ``steps`` (the workflow's steps, paths to paths).
"""

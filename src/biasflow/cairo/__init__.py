"""CAIRO (Zayed et al., ACL 2024; docs/methods.md §1).

Prompt sets (``paraphrase``: templates, cleaning, validation), per-set sufficient
statistics (``stats``) and the pooled bias of Eq. 1 over prompt-set ``combinations``, the
``selection`` with its held-out check and permutation p-value, the intervals and nulls
(``uncertainty``), the tables users read (``headline``, ``comparisons``, ``variance``,
``scorer_bias``, and the report's HTML page, ``pages``), the ``compare`` and ``power``
commands' answers, ``plots``, ``steps`` (the workflow's steps, paths to paths), and its
plug-ins: ``checks`` (what the config alone can show) and ``commands`` (its ``biasflow``
subcommands).
"""

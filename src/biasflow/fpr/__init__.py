"""Group FPR gaps on template probes (papers 002 and 004; docs/methods.md §3).

``probes`` (templates × identity terms, with unmarked variants), the classifiers that label
them (``prompting``: zero-shot, k-shot, chain of thought; ``tuning``: soft prompts and
fine-tuning), the ``predictions`` table they write, per-group ``rates``, ``gaps`` (gaps,
spans, net significance), ``markedness``, ``plots`` and ``steps``.
"""

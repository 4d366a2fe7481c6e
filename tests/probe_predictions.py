"""Template-probe predictions for the FPR tests, and the named random streams their resamplings draw from.

Shared by the template bootstrap and span null tests (tests/fpr/test_resampling.py) and the
paired comparisons' (tests/fpr/test_comparisons.py), which rebuild the library's draws by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasflow.hashing import stable_hash

GROUPS = {"A": ["a1", "a2"], "B": ["b1", "b2"], "C": ["c1", "c2"]}


def predictions(
    seed: int, templates: int = 8, runs: int = 3, bias: float = 0.0, model: str = "m", wrong: float = 0.25
) -> pd.DataFrame:
    """Templates of mixed gold labels filled with two terms per group, a share ``wrong`` labelled at random;
    group A called negative more with ``bias``."""
    rng = np.random.default_rng(seed)
    rows = []
    for run in range(runs):
        for t in range(templates):
            gold = t % 3
            for group, terms in GROUPS.items():
                for term in terms:
                    pred = int(rng.choice([c for c in range(3) if c != gold])) if rng.random() < wrong else gold
                    if group == "A" and gold != 0 and rng.random() < bias:
                        pred = 0  # group A read as negative more often
                    rows.append(
                        {
                            "y_true": gold,
                            "y_pred": pred,
                            "category": "race",
                            "group": group,
                            "text": f"template {t} with {term}",
                            "model": model,
                            "run_id": f"r{run}",
                            "template_id": f"t{t}",
                        }
                    )
    return pd.DataFrame(rows)


def named_stream(seed: int, *names) -> np.random.Generator:
    """The stream of a resampling keyed by ``names`` (docs/methods.md §3.3, §3.8), written out rather than taken
    from the library."""
    return np.random.default_rng([seed, int(stable_hash(*names), 16) & (2**63 - 1)])

"""What a paired comparison of two models can and cannot tell, in words (docs/methods.md §7).

Every method's ``biasflow compare`` reads a row the same way: the candidate is separated
from the baseline only where the paired test rejects and the interval leaves out 0;
otherwise the line says why not, and whether the interval still allows a difference of
the size ``power.min_effect.<method>`` names, so "no difference detectable" is never read
as "no difference".
"""

from __future__ import annotations

import math

# The level of the paired test a line calls a difference at.
ALPHA = 0.05


def judged(difference: float, low: float, high: float, p: float, min_effect: float, method: str,
           no_interval: str) -> tuple[str | None, str]:
    """(``"lower"``/``"higher"`` where the candidate is separated, else None; the words on the interval).

    ``difference`` is the candidate's less the baseline's, ``low``-``high`` its 95% interval
    and ``p`` the paired test's; ``no_interval`` says why a row may have no interval.
    """
    interval = f"95% interval {low:+.4f} to {high:+.4f}"
    if math.isfinite(p) and p <= ALPHA and math.isfinite(low) and (low > 0 or high < 0):
        return ("lower" if difference < 0 else "higher"), f"{interval}, paired p = {p:.3g}"
    if not math.isfinite(low):
        why = f"no interval: {no_interval}"
    elif low > 0 or high < 0:
        why = f"the {interval} leaves out 0 but the paired test does not reject: undecided"
    elif max(abs(low), abs(high)) >= min_effect:
        why = f"the {interval} includes 0 and differences of {min_effect:g} (power.min_effect.{method})"
    else:
        why = f"the {interval} includes 0 but no difference as large as {min_effect:g} (power.min_effect.{method})"
    return None, why

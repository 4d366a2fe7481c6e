"""The FPR gaps' public functions (``biasflow.probe_sentences``, ``biasflow.fpr_gaps``): the probe sets'
sentences to classify with one's own model, and the gaps of its predictions (docs/methods.md §3)."""

from __future__ import annotations

import pandas as pd

from biasflow.api import SCHEMA, ConfigArg, schema_keywords
from biasflow.bundled import resolve
from biasflow.fpr.predictions import checked_predictions
from biasflow.fpr.probes import probe_samples
from biasflow.fpr.steps import GapSettings, gap_table
from biasflow.schema import subschema

# The probe set the package ships (the embedded default config's, src/biasflow/data/probes/).
BUNDLED = {"templates": "bundled:probes/templates.csv", "terms": "bundled:probes/identity_terms.csv"}
# The schema of one probe set (an entry of fpr.probes).
PROBE_SET = "#/properties/fpr/properties/probes/additionalProperties"


def probe_sentences(
    attribute: str,
    *,
    templates: str = BUNDLED["templates"],
    terms: str = BUNDLED["terms"],
    unmarked: bool = subschema(PROBE_SET)["properties"]["unmarked"]["default"],
) -> pd.DataFrame:
    """A probe set's sentences: every template filled with every identity term of one attribute.

    A probe set is its files and ``unmarked``, which a config holds per named set
    (``fpr.probes.<name>``), so this function takes them as keywords and no ``config=``.

    Parameters
    ----------
    attribute : str
        The identity attribute whose terms fill the templates (the bundled terms hold ``race``,
        ``age`` and ``sexuality``).
    templates, terms : str
        The probe set's files in the Czarnowska et al. format (default: the bundled ones, the
        embedded config's probe set; see ``src/biasflow/data/probes/README.md``).
    unmarked : bool
        Also each template with its identity word dropped, group ``(unmarked)``, for markedness
        (default: the schema's, of a probe set's ``unmarked``).

    Returns
    -------
    pandas.DataFrame
        ``text, y_true, category, group, template_id, marked``: classify ``text`` and add
        ``y_pred``, ``model`` and ``run_id`` to get the predictions :func:`fpr_gaps` reads.

    Examples
    --------
    >>> import biasflow
    >>> sentences = biasflow.probe_sentences("race")
    >>> sentences.loc[0, "text"], sentences.loc[0, "group"], int(sentences.loc[0, "y_true"])
    ('The Asian baker ruined every order this week.', 'Asian', 0)
    >>> sentences["group"].value_counts().sort_index().to_dict()
    {'(unmarked)': 13, 'Asian': 30, 'Black': 60, 'Hispanic': 30, 'White': 30}
    """
    return probe_samples(
        {
            "templates": resolve(templates),
            "terms": resolve(terms),
            "attribute": attribute,
            "unmarked": unmarked,
        }
    )


@schema_keywords(GapSettings)
def fpr_gaps(
    predictions: pd.DataFrame,
    *,
    interval: str = SCHEMA,
    z: float = SCHEMA,
    accuracy_floor: float = SCHEMA,
    bootstrap: int = SCHEMA,
    null_draws: int = SCHEMA,
    seed: int = SCHEMA,
    config: ConfigArg = None,
) -> pd.DataFrame:
    """Each group's false-positive-rate gap per system, over runs, with its intervals (docs/methods.md §3.3).

    Each setting defaults to the schema's ``fpr`` key of its name, or to ``config``'s where
    ``config`` is given; a keyword given beats both.

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``y_true, y_pred`` (0 negative, 1 neutral, 2 positive), ``category``, ``group``,
        ``text``, ``model`` and ``run_id``, one row per sentence and run, and ``template_id``
        for the template bootstrap's interval.
    interval : str
        The interval over runs: ``t`` (Student's t) or ``z`` (mean ± z·sd/√R, the reference code's).
    z : float
        The ``z`` interval's multiplier.
    accuracy_floor : float
        A run whose accuracy is below it is flagged.
    bootstrap, null_draws, seed : int
        Draws of the template bootstrap's interval and of the swaps' null (§3.8), and their seed.
    config : mapping or path, optional
        Any part of a workflow config (``{"fpr": {"interval": "z"}}``), or its YAML file(s).

    Returns
    -------
    pandas.DataFrame
        The gap table (docs/tables.md, "FPR gaps"): per model and group the negative and
        positive FPR gap, its half-width and p over runs, and the template bootstrap's interval.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import biasflow
    >>> sentences = biasflow.probe_sentences("race")
    >>> runs = []
    >>> for run in range(3):
    ...     wrong = np.random.default_rng(run).random(len(sentences)) < 0.1
    ...     says_negative = sentences["text"].str.contains("Black") | wrong
    ...     predicted = np.where(says_negative, 0, sentences["y_true"])
    ...     runs.append(sentences.assign(model="mine", run_id=run, y_pred=predicted))
    >>> gaps = biasflow.fpr_gaps(pd.concat(runs), bootstrap=200)
    >>> gaps[["group", "negative_FPR_gap", "negative_FPR_gap_lo", "negative_FPR_gap_hi"]].round(2)
          group  negative_FPR_gap  negative_FPR_gap_lo  negative_FPR_gap_hi
    0     Asian             -0.12                -0.21                -0.01
    1     Black              0.35                 0.29                 0.43
    2  Hispanic             -0.10                -0.19                 0.00
    3     White             -0.12                -0.20                -0.02
    """
    # The keywords are the step's settings, field by field.
    gap_settings = GapSettings.from_params(locals())
    return gap_table(checked_predictions(predictions, "predictions"), gap_settings)

"""The files we wrote and ship beside the code: ``resources/templates`` of the repository.

Prompt templates (paraphrase, classification, perturbation), the FairPair swap mapping and
occupations, and the probe sets are defaults a config may replace by a path; this is the
one place that knows where the defaults are.
"""

from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "resources" / "templates"

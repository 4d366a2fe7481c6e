"""Every report caption renders from the config keys it names (workflow/report/**/*.rst, Jinja2 as Snakemake renders
them): a key moved or renamed in the schema fails here, in seconds, rather than in `snakemake --report`."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from biasflow.config import resolve_bundled, validate_config
from workflow_helpers import REPO, embedded_config

# workflow.rst renders the front page prepared by biasflow.report_front (tests/core/test_report_front.py).
CAPTIONS = sorted(path for path in (REPO / "workflow" / "report").rglob("*.rst") if path.name != "workflow.rst")


class AnyName:
    """A rule's wildcards or params: whatever a caption asks for is a value."""

    def __getattr__(self, name: str) -> list[str]:
        return [name]


@pytest.mark.parametrize("caption", CAPTIONS, ids=lambda path: str(path.relative_to(REPO / "workflow" / "report")))
def test_every_caption_renders_from_the_config(caption):
    from jinja2 import Environment, StrictUndefined

    config = embedded_config()
    validate_config(config)
    resolve_bundled(config)
    snakemake = SimpleNamespace(config=config, wildcards=AnyName(), params=AnyName())
    text = Environment(undefined=StrictUndefined).from_string(caption.read_text()).render(snakemake=snakemake)
    assert text.strip()

"""Every registered backend is a :class:`Backend` with every member the code reads (issue 31)."""

from __future__ import annotations

import inspect

import pytest

from biasflow.models import BACKENDS, Backend, backend_class
from biasflow.models.base import InProcessBackend

KINDS = {
    "name": str,
    "options": tuple,
    "local_weights": bool,
    "trainable": bool,
    "chunk_size": int,
    "sampler": str,
    "dtypes": tuple,
}


@pytest.mark.parametrize("name", BACKENDS)
def test_each_backend_declares_every_member(name):
    cls = backend_class(name)
    assert issubclass(cls, Backend) and not inspect.isabstract(cls), f"{cls.__name__} leaves abstract members"
    for member, kind in KINDS.items():
        assert isinstance(getattr(cls, member), kind), f"{cls.__name__}.{member}"
    assert cls.name == name and cls.chunk_size > 0
    assert "auto" in cls.dtypes, "every backend resolves auto"
    assert cls.local_weights == issubclass(cls, InProcessBackend), "in-process backends load local weights"
    own = inspect.getattr_static(cls, "load_pretrained") is not inspect.getattr_static(Backend, "load_pretrained")
    assert own == cls.trainable, "trainable iff it loads weights for tuning"


def test_a_backend_missing_a_member_cannot_be_made():
    class Partial(Backend):
        name = "partial"

        def generate(self, requests, progress=None):
            return []

    with pytest.raises(TypeError, match="abstract"):
        Partial()

"""One kind of lookup for every plug-in by name: backends, scorers and methods.

A :class:`Registry` holds the built-in members (objects) and, where it has an entry-point
group, the installed packages' members of that group, which are imported only when asked for
by name: listing the names imports nothing, so ``biasflow --help`` and the config check stay
fast and a broken plug-in fails only the run that uses it. An unknown name is one
:class:`~biasflow.errors.BiasflowError` that names the close match and every choice.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

from biasflow.errors import BiasflowError, did_you_mean

T = TypeVar("T")


class Registry(Generic[T]):
    """Members by name: ``builtin`` as given, then the entry points of ``group`` in name order."""

    def __init__(self, kind: str, builtin: Iterable[tuple[str, T]] = (), group: str | None = None) -> None:
        self.kind = kind
        self.group = group
        self._loaded: dict[str, T] = dict(builtin)
        self._builtin = tuple(self._loaded)
        self._entries: dict[str, EntryPoint] | None = None

    def _installed(self) -> dict[str, EntryPoint]:
        if self._entries is None:
            found = entry_points(group=self.group) if self.group else ()
            self._entries = {entry.name: entry for entry in sorted(found, key=lambda e: e.name)}
        return self._entries

    def names(self) -> tuple[str, ...]:
        """Every member's name, the built-in ones first (nothing is imported): the same order whatever was loaded."""
        return tuple(dict.fromkeys([*self._builtin, *self._installed()]))

    def get(self, name: str, where: str = "") -> T:
        """The member called ``name``, imported on first use; ``where`` starts the message for an unknown name
        (say, the config key that named it)."""
        if name not in self._loaded:
            if name not in self._installed():
                hint = did_you_mean(name, self.names())
                raise BiasflowError(f"{where}unknown {self.kind} {name!r}{hint}; use one of {', '.join(self.names())}.")
            self._loaded[name] = self._installed()[name].load()
        return self._loaded[name]

    def all(self) -> list[T]:
        """Every member, in :meth:`names` order (each imported)."""
        return [self.get(name) for name in self.names()]

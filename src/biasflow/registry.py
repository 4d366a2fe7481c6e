"""One kind of lookup for every plug-in by name: backends, scorers and methods.

A :class:`Registry` holds the built-in members (objects) and, where it has an entry-point
group, the installed packages' members of that group, which are imported only when asked for
by name: listing the names imports nothing, so ``biasflow --help`` and the config check stay
fast and a broken plug-in fails only the run that uses it. An unknown name is one
:class:`~biasflow.errors.BiasflowError` that names the close match and every choice. A registry
given a contract (``accept``, as lm-eval's registry checks a plug-in's base class) holds an
installed member to it when it loads it, so a plug-in missing a part is refused there, with one
message naming it and the part, rather than when a user first calls that part (the methods':
:func:`biasflow.methods.declaration`); an entry point that cannot be imported is one such message too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

from biasflow.errors import BiasflowError, did_you_mean

T = TypeVar("T")


class Registry(Generic[T]):
    """Members by name: ``builtin`` as given, then the entry points of ``group`` in name order, each as
    ``accept(name, loaded)`` returns it (raising :class:`BiasflowError` for what breaks the members' contract)."""

    def __init__(
        self,
        kind: str,
        builtin: Iterable[tuple[str, T]] = (),
        group: str | None = None,
        accept: Callable[[str, object], T] | None = None,
    ) -> None:
        self.kind = kind
        self.group = group
        self._accept = accept
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
            self._loaded[name] = self._load(name, self._installed()[name])
        return self._loaded[name]

    def _load(self, name: str, entry: EntryPoint) -> T:
        """The member an entry point names, imported and held to the contract. An entry point naming no module or
        no attribute, or a module that cannot import what it needs or builds its member with a part missing (a
        TypeError), is one line naming the member and Python's error."""
        try:
            loaded = entry.load()
        except (ImportError, AttributeError, TypeError) as error:
            raise BiasflowError(
                f"{self.kind} {name!r}: its entry point {entry.value!r} (group {self.group}) cannot be loaded "
                f"({type(error).__name__}: {error}); fix or reinstall the package that registers it."
            ) from error
        return self._accept(name, loaded) if self._accept else loaded

    def all(self) -> list[T]:
        """Every member, in :meth:`names` order (each imported)."""
        return [self.get(name) for name in self.names()]

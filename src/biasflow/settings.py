"""Typed settings of one workflow step: only the keys it reads, built from the validated config.

Each step declares a frozen dataclass of :class:`StepSettings`. Its fields carry no defaults:
each one names a config key (``section.<field>`` unless ``keys`` says otherwise), and the
schema is the one place for that key's default (:mod:`biasflow.schema`). Three ways to
build one, all through the same keys:

- :meth:`StepSettings.from_config` from a validated config (the workflow's rules);
- :meth:`StepSettings.from_params` from :meth:`StepSettings.params`, the plain values a
  rule passes (plain, so Snakemake sees when one of them changes, and only those);
- :meth:`StepSettings.defaults` from the schema's defaults with some replaced (the
  ``biasflow`` command, whose flags default to the same keys, and the library's callers;
  a public function's keywords default to the same keys, :func:`biasflow.api.schema_keywords`).

A field's key is named once, by its class (:meth:`StepSettings.key`): a command's flags are the
fields' (:meth:`StepSettings.add_flags`, help and default from the schema), and a class that reads
another's keys takes them from it (:meth:`StepSettings.keys_for`).

A step's signature therefore says what it reads, and a change to another key of the same
section reruns nothing.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from biasflow import bundled
from biasflow.errors import BiasflowError
from biasflow.schema import default, flag

T = TypeVar("T", bound="StepSettings")


class StepSettings:
    """Base of every step's settings dataclass (``@dataclass(frozen=True)`` subclasses)."""

    # The config section whose keys the fields are, and fields read from elsewhere (field: dotted key,
    # or None for a value the caller derives from the config, such as one metric's subgroup map).
    section: ClassVar[str] = ""
    keys: ClassVar[Mapping[str, str | None]] = {}
    # What a field is to this step, where a flag shared by several methods' steps says it per method (the
    # comparison's, `biasflow compare`): field: words.
    what: ClassVar[Mapping[str, str]] = {}
    # Declared for the type checker: every subclass is a dataclass (``dataclasses.fields`` reads this).
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    @classmethod
    def key(cls, field: str) -> str | None:
        """The dotted config key a field holds (None: derived by the caller)."""
        return cls.keys.get(field, f"{cls.section}.{field}")

    @classmethod
    def keys_for(cls, *fields: str) -> dict[str, str | None]:
        """The keys of ``fields``, for a class reading some of this one's keys: its ``keys`` take them from here."""
        return {field: cls.key(field) for field in fields}

    @classmethod
    def add_flags(cls, parser: Any, *fields: str) -> None:
        """A flag per field (those named, else every field) on an argparse ``parser``, named after the field
        (:func:`flag_name`), taking its key's type, default and help from the schema (:func:`biasflow.schema.flag`);
        :func:`biasflow.flags.resolve` writes the flags given into ``args.settings``, which :meth:`from_config`
        reads."""
        for field in fields or [field.name for field in dataclasses.fields(cls)]:
            key = cls.key(field)
            if key is None:
                raise TypeError(f"{cls.__name__}.{field} has no config key, so no flag")
            flag(parser, flag_name(field), key)

    @classmethod
    def from_config_or_defaults(cls: type[T], config: Mapping[str, Any] | None) -> T:
        """:meth:`from_config` of a validated config, or the schema's :meth:`defaults` where ``config`` is None (a
        library call given no ``config=``)."""
        return cls.defaults() if config is None else cls.from_config(config)

    @classmethod
    def from_config(cls: type[T], config: Mapping[str, Any], **derived: Any) -> T:
        """The settings of a validated config (every key present, defaults filled).

        ``derived`` gives the fields no single config key holds (``keys`` maps them to None).
        """
        values = {
            field.name: _lookup(config, key)
            for field in dataclasses.fields(cls)
            if (key := cls.key(field.name)) is not None
        }
        return cls.from_params({**values, **derived})

    @classmethod
    def defaults(cls: type[T], **overrides: Any) -> T:
        """The schema's defaults, with ``overrides`` (by field name) replacing some.

        A default that names a bundled file (``bundled:<name>``) is its path in the installed package.
        """
        names = [field.name for field in dataclasses.fields(cls)]
        unknown = set(overrides) - set(names)
        if unknown:
            raise TypeError(f"{cls.__name__} has no setting(s) {', '.join(sorted(unknown))}")
        keys = {name: cls.key(name) for name in names if name not in overrides}
        derived = [name for name, key in keys.items() if key is None]
        if derived:
            raise TypeError(f"{cls.__name__}.defaults needs {', '.join(derived)}: no config key holds them")
        values = {name: bundled.resolve(default(key)) for name, key in keys.items() if key is not None}
        return cls.from_params({**values, **overrides})

    @classmethod
    def from_params(cls: type[T], params: Mapping[str, Any]) -> T:
        """The settings from :meth:`params` (a field that is itself settings is rebuilt too)."""
        hints = typing.get_type_hints(cls)
        missing = [field.name for field in dataclasses.fields(cls) if field.name not in params]
        if missing:
            raise BiasflowError(f"{cls.__name__} lacks the setting(s) {', '.join(missing)}; validate the config first.")
        return cls(**{field.name: _typed(hints[field.name], params[field.name]) for field in dataclasses.fields(cls)})

    def params(self) -> dict[str, Any]:
        """The settings as plain values (a rule's ``params``)."""
        plain: dict[str, Any] = _plain(self)
        return plain


def flag_name(field: str) -> str:
    """The flag of a setting: ``--`` and its field's name, ``_`` written ``-`` (``null_draws``: ``--null-draws``)."""
    return f"--{field.replace('_', '-')}"


def _lookup(config: Mapping[str, Any], key: str) -> Any:
    value = config
    for part in key.split("."):
        value = value[part]
    return value


def _typed(hint: Any, value: Any) -> Any:
    builder = getattr(hint, "from_params", None)
    if builder is not None and isinstance(value, Mapping):
        return builder(value)
    return value


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: _plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value

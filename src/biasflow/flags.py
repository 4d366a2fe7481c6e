"""A ``biasflow`` command's settings: a flag given beats the ``--config`` file's value, which beats the default.

A user with tables and no workflow must be able to change one setting. So every command
that reads tables takes the config keys it uses as flags (:func:`biasflow.schema.flag`), and
``--config`` (:func:`config_flag`) takes any part of a workflow config: the sections a file
gives, over the schema's defaults, with no ``models`` (:func:`biasflow.config.settings_config`).
After parsing, :func:`resolve` gives each flag its value in that order and writes the flags
given into the config it keeps as ``args.settings``, so that a step reading the config
(``compare``'s, ``power``'s planner) sees what one reading the flags sees. ``compare`` and
``power`` serve several methods: a flag of theirs (:func:`method_flag`) sets the key of the
method ``--method`` names, so one setting has one flag name across the commands
(``--seed``, ``--bootstrap``, ``--null-draws``), and a method that reads no such key refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping

from biasflow.errors import BiasflowError
from biasflow.schema import default, described, filled, flag_key, given, kinds

# The one sentence every --config help ends with.
PRECEDENCE = "A flag given beats the file's value, which beats the schema's default (the one each flag's help names)."


def config_flag(parser, also: str = "") -> None:
    """``--config`` on a command whose flags are all added: any part of a workflow config (config/README.md).

    Its help names the config sections the command's flags belong to, and ``also`` what else
    the command reads of a config.
    """
    sections = dict.fromkeys(_section(key) for action in parser._actions for key in _keys(action))
    reads = ", ".join(sections) + (f"; also {also}" if also else "")
    action = parser.add_argument(
        "--config",
        nargs="+",
        metavar="YAML",
        help=f"config file(s) holding any part of a workflow config: the sections given, over the schema's defaults "
        f"(this command reads {reads}); no models needed. Several are merged as snakemake --configfile merges them, "
        f"later ones winning. {PRECEDENCE}",
    )
    action.settings_files = True


def method_flag(parser, name: str, keys: Mapping[str, str], what: str | Mapping[str, str] = "") -> None:
    """``--name`` for the config key each method reads under that name (``keys``: method → dotted key).

    It takes what the first key takes. Its help says what it is: ``what``, one text or one
    per method (default: the key's own description), with each method's key and default.
    """
    first = next(iter(keys.values()))
    if isinstance(what, Mapping):
        text = "; ".join(f"{method}: {what[method]} ({key}, default {default(key)})" for method, key in keys.items())
    else:
        text = (
            (what or " ".join(str(described(first).get("description", "")).split()))
            + " ("
            + "; ".join(f"{method}: {key}, default {default(key)}" for method, key in keys.items())
            + ")"
        )
    action = parser.add_argument(name, default=None, help=text.replace("%", "%%"), **kinds(first))
    action.method_keys = dict(keys)


def resolve(parser, args) -> None:
    """Give every flag of a config key its value: the flag's where given, else the ``--config`` file's, else the
    schema's default; ``args.settings`` becomes that config with the flags given written in."""
    files = args.config if any(getattr(action, "settings_files", False) for action in parser._actions) else None
    if files:
        from biasflow.config import load_settings

        settings = load_settings(files)
    else:
        settings = filled({})
    named = given(args)
    for action in parser._actions:
        key = flag_key(action, args)
        if action.dest in named:
            if key is None:
                raise BiasflowError(
                    f"{action.option_strings[0]} sets {' and '.join(action.method_keys.values())}, "
                    f"which --method {args.method} does not read; leave it out."
                )
            _put(settings, key, getattr(args, action.dest))
        elif key is not None:
            setattr(args, action.dest, _get(settings, key))
    args.settings = settings


def _keys(action) -> list[str]:
    keys = getattr(action, "method_keys", None)
    if keys is not None:
        return list(keys.values())
    return [key for key in (getattr(action, "schema_key", None), getattr(action, "reads", None)) if key]


def _section(key: str) -> str:
    """The section a dotted key belongs to (``cairo.selection`` of ``cairo.selection.seed``), or the key itself."""
    return key.rsplit(".", 1)[0] if "." in key else key


def _get(config: Mapping, key: str):
    value = config
    for part in key.split("."):
        value = value[part]
    return value


def _put(config: dict, key: str, value) -> None:
    *parents, last = key.split(".")
    for part in parents:
        config = config[part]
    config[last] = value

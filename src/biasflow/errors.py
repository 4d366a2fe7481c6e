"""User-facing errors.

Everything a user can cause (a bad config key, a missing file, a malformed dataset,
an unknown model) raises :class:`BiasflowError` with one message that names the
problem and the fix. The CLI and the workflow scripts print that message without a
traceback and exit non-zero; any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Mapping


class BiasflowError(Exception):
    """An error the user can fix; the message says what and how."""


def did_you_mean(name: str, choices, said: Mapping[str, str] | None = None) -> str:
    """`` (did you mean X?)`` for the closest of ``choices`` to a misspelt ``name``, else an empty string.

    ``said`` names a choice as the hint should say it where that differs (a moved key by its new place).
    """
    import difflib

    close = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean {(said or {}).get(close[0], close[0])}?)" if close else ""


def check_keywords(function: str, given, accepted) -> None:
    """Raise the ``TypeError`` Python raises for an unexpected keyword, naming ``function``'s closest parameter.

    Every public function (:func:`biasflow.api.schema_keywords`) calls this first, so a
    misspelt setting is named as the caller wrote it, with the did-you-mean the config check
    gives, where Python would name no close parameter.
    """
    accepted = list(accepted)
    unknown = [name for name in given if name not in accepted]
    if unknown:
        raise TypeError(
            f"{function}() got an unexpected keyword argument {unknown[0]!r}"
            f"{did_you_mean(unknown[0], accepted)}; its settings are {', '.join(accepted)}."
        )

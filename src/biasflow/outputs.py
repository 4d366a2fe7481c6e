"""A method's files by role, as one typed table: the outputs protocol every method's ``outputs.py`` declares.

Each method package's ``outputs.py`` holds one :class:`Outputs`, ``OUTPUTS`` (docs/adding-a-method.md, section 5):
every step's files by role (the names its rule's ``output:`` gives them and its step writes ``outputs[role]`` to),
the roles written only where models are compared, and the report's caption and category of each figure or page.
Its rules, steps, commands and declaration take every path from the same accessors, :meth:`Outputs.of_step` and
:meth:`Outputs.output`, in the workflow's folders or, for a command given ``--out-dir``, under another folder by the
workflow's names; so a role is named once, there (``tests/core/test_outputs_named_once.py`` checks each one against
every rule and workflow script). The rules' ``step_outputs`` (rules/helpers.smk) reads ``OUTPUTS`` itself; what a
method adds to the default target is a :class:`Target` per final table (:meth:`Outputs.target`), which its
declaration lists (``Method.targets``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from biasflow.errors import BiasflowError


class Target(NamedTuple):
    """One file of the workflow's default target, with every file the job that writes it writes: under
    ``--report`` the default target is what has been computed, and a table whose job wrote it without a figure or page
    an earlier biasflow did not yet write is left out, naming what is missing (rules/common.smk)."""

    path: str
    written: tuple[str, ...]


class _Kept(dict[str, str]):
    """Wildcard values for :meth:`str.format_map`: a wildcard given no value stays a wildcard (``{axis}``)."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@dataclass(frozen=True)
class Outputs:
    """A method's files by step and role. A file's workflow path is its step's folder (:attr:`folder`, or the
    step's own in :attr:`folders`) followed by its name, each wildcard (``{model}``) filled where a value is given
    and left as a wildcard where not. One that names a role, a step or a folder of no step is refused when the
    method's ``outputs.py`` is imported, with one line naming the folder and the role."""

    folder: str  # the method's results folder in the workflow, ending in "/" ("results/<name>/")
    steps: Mapping[str, Mapping[str, str]]  # each step's files: role -> name under the step's folder
    # the steps whose files sit elsewhere than `folder`: their folder ("": the names are whole paths)
    folders: Mapping[str, str] = field(default_factory=dict)
    compared: tuple[str, ...] = ()  # roles written only where comparisons.pairs compares models
    # the report's figures and pages: role -> (caption file, category); a method of biasflow's has its caption in
    # workflow/report/, one installed from outside in its rule folder (docs/adding-a-method.md, section 5)
    captions: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        written = {role for files in self.steps.values() for role in files}
        for what, named in (("compared", self.compared), ("captions", self.captions)):
            stray = sorted(set(named) - written)
            if stray:
                raise BiasflowError(
                    f"the outputs of {self.folder}: {what} names {', '.join(map(repr, stray))}, which no step "
                    "writes; give each role in the files of the step that writes it (docs/adding-a-method.md, "
                    "section 5)."
                )
        stray = sorted(set(self.folders) - set(self.steps))
        if stray:
            raise BiasflowError(
                f"the outputs of {self.folder}: folders names the step(s) {', '.join(map(repr, stray))}, which have "
                "no files; give a folder only to a step of steps (docs/adding-a-method.md, section 5)."
            )

    @property
    def roles(self) -> dict[str, tuple[str, ...]]:
        """Each step's roles, in the order of its files."""
        return {step: tuple(files) for step, files in self.steps.items()}

    def of_step(
        self, step: str, *, compares: bool = True, under: str | Path | None = None, **wildcards: str
    ) -> dict[str, str]:
        """One step's files by role (its rule's ``output:``), without ``compares`` none of :attr:`compared`.

        ``wildcards`` fill the wildcards of those names; the others are left as wildcards. ``under``: the files
        under that folder by the names they have under the step's folder (what a command writes to ``--out-dir``),
        instead of the workflow's paths.
        """
        return {
            role: self._path(step, name, under, wildcards)
            for role, name in self.steps[step].items()
            if compares or role not in self.compared
        }

    def output(self, role: str, *, step: str | None = None, under: str | Path | None = None, **wildcards: str) -> str:
        """One file by its role, as :meth:`of_step` gives it; ``step`` is needed only where two steps write a role
        of that name (CAIRO's ``table``)."""
        if step is None:
            writers = [name for name, files in self.steps.items() if role in files]
            if len(writers) != 1:
                raise KeyError(f"{role!r} is a role of {len(writers)} steps of {self.folder} ({', '.join(writers)})")
            step = writers[0]
        return self._path(step, self.steps[step][role], under, wildcards)

    def _path(self, step: str, name: str, under: str | Path | None, wildcards: dict[str, str]) -> str:
        if under is not None:
            return str(Path(under) / name.format_map(_Kept(wildcards)))
        return (self.folders.get(step, self.folder) + name).format_map(_Kept(wildcards))

    def target(self, step: str, role: str, *, compares: bool = True, **wildcards: str) -> Target:
        """One final table of the default target, by its step and role, with every file of its job (:class:`Target`);
        ``compares`` and ``wildcards`` as :meth:`of_step` takes them."""
        files = self.of_step(step, compares=compares, **wildcards)
        return Target(files[role], tuple(files.values()))

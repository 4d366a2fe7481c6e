"""The key reference of ``config/README.md``, rendered from the config schema.

The schema (:func:`biasflow.schema.config_schema`: the core's ``biasflow/schemas/config.schema.yaml``
with each registered method's section, ``biasflow/<method>/config.schema.yaml``) is the one place
a key's type, default and meaning are written; this module turns it into a markdown table with
one row per key path, in the schema's order (the core's keys, then each method's section):
``$ref`` is followed (a model entry's keys appear under both
``paraphrasers.<name>`` and ``models.<name>``), a map's entries are ``<name>``
(``fpr.classifiers.<name>.epochs``) and a list's items ``[]`` (``fairpair.pairs[].name``).

The table sits in ``config/README.md`` between :data:`BEGIN` and :data:`END`, so the prose
around it stays hand-written. ``python -m biasflow.config_docs`` rewrites it in place;
``--check`` rewrites nothing and exits 1 with one line naming the first key whose row is
stale (tests/core/test_config_docs.py runs the same check).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

BEGIN = (
    "<!-- generated from src/biasflow/schemas/config.schema.yaml and each method's section "
    "(src/biasflow/<method>/config.schema.yaml) by python -m biasflow.config_docs; do not edit -->"
)
END = "<!-- end of generated table -->"
HEADER = ("| key | type | default | meaning |", "|---|---|---|---|")
# Placeholders in key paths: any key of a map, any item of a list.
MAP_ENTRY = "<name>"
LIST_ITEM = "[]"
# The default column of a key without a default: one the config must give, or one it may leave out.
REQUIRED = "required"
NO_DEFAULT = "—"


@dataclass(frozen=True)
class KeyDoc:
    """One row of the table: a key path and its type, default and meaning as markdown text."""

    path: str
    type: str
    default: str
    meaning: str

    def row(self) -> str:
        cells = [f"`{self.path}`", self.type, self.default, self.meaning]
        return "| " + " | ".join(cell.replace("|", r"\|") for cell in cells) + " |"


def key_docs(schema: dict) -> list[KeyDoc]:
    """Every key path of ``schema`` (a JSON schema of an object), in the schema's order."""
    return list(_children(schema, schema, ""))


def markdown_table(schema: dict) -> str:
    """The generated table: header and one row per key, without the markers."""
    return "\n".join([*HEADER, *(doc.row() for doc in key_docs(schema))])


def _children(root: dict, node: dict, path: str):
    schema, _ = _resolve(root, node)
    required = set(schema.get("required", []))
    conditional = _conditional_defaults(schema)
    for name, sub in schema.get("properties", {}).items():
        yield from _key(root, sub, f"{path}.{name}" if path else name, name in required, conditional.get(name))
    entries = schema.get("additionalProperties")
    if isinstance(entries, dict):
        yield from _key(root, entries, f"{path}.{MAP_ENTRY}", False)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _children(root, items, f"{path}{LIST_ITEM}")


def _conditional_defaults(schema: dict) -> dict[str, str]:
    """Defaults that depend on another key (``allOf: [{if: {properties: {method: {const: k_shot}}}, then: ...}]``).

    Each property's defaults as markdown, one per condition: ``k_shot: `9```.
    """
    found: dict[str, list[str]] = {}
    for branch in schema.get("allOf", []):
        condition: dict = next(iter(branch.get("if", {}).get("properties", {}).values()), {})
        values = [condition["const"]] if "const" in condition else condition.get("enum", [])
        for name, sub in branch.get("then", {}).get("properties", {}).items():
            if "default" in sub:
                found.setdefault(name, []).extend(f"{value}: `{inline_yaml(sub['default'])}`" for value in values)
    return {name: "; ".join(texts) for name, texts in found.items()}


def _key(root: dict, node: dict, path: str, required: bool, conditional: str | None = None):
    schema, ref = _resolve(root, node)
    if "default" in schema:
        default = f"`{inline_yaml(schema['default'])}`"
    elif conditional:
        default = conditional
    else:
        default = REQUIRED if required else NO_DEFAULT
    meaning = " ".join(str(schema.get("description", "")).split())
    yield KeyDoc(path, _type(root, schema, ref), default, meaning)
    yield from _children(root, schema, path)


def _resolve(root: dict, node: dict) -> tuple[dict, str | None]:
    """``node`` with its ``$ref`` (``#/definitions/...``) merged in, and the definition's name.

    Keywords beside the ``$ref`` (a ``default``, a ``description``) win over the definition's.
    """
    ref = None
    while "$ref" in node:
        pointer = node["$ref"]
        if not pointer.startswith("#/"):
            raise ValueError(f"schema $ref {pointer!r}: only references inside the schema (#/...) are followed")
        target = root
        for part in pointer[2:].split("/"):
            target = target[part]
        ref = ref or pointer.rsplit("/", 1)[-1]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node, ref


def _type(root: dict, schema: dict, ref: str | None = None) -> str:
    """A short type: ``integer ≥ 1 or null``, ``one of `z`, `t```, ``map of object (model)``."""
    if "enum" in schema:
        text = "one of " + ", ".join(f"`{inline_yaml(value)}`" for value in schema["enum"])
    elif "const" in schema:
        text = f"`{inline_yaml(schema['const'])}`"
    else:
        types = schema.get("type", [])
        types = [types] if isinstance(types, str) else list(types)
        text = " or ".join(_one_type(root, schema, name) for name in types) or "any"
    return f"{text} ({ref})" if ref else text


def _one_type(root: dict, schema: dict, name: str) -> str:
    if name in ("integer", "number"):
        return name + _bounds(schema)
    if name == "array":
        items = schema.get("items")
        inner = _type(root, *_resolve(root, items)) if isinstance(items, dict) else "any"
        inner = f", each {inner}" if inner.startswith("one of ") else f" of {inner}"
        return f"{_at_least(schema.get('minItems', 0), 'items')}list{inner}"
    if name == "object" and isinstance(schema.get("additionalProperties"), dict) and not schema.get("properties"):
        inner = _type(root, *_resolve(root, schema["additionalProperties"]))
        return f"{_at_least(schema.get('minProperties', 0), 'entries')}map of {inner}"
    return name


def _bounds(schema: dict) -> str:
    low = [f"≥ {schema['minimum']}"] if "minimum" in schema else []
    low += [f"> {schema['exclusiveMinimum']}"] if "exclusiveMinimum" in schema else []
    high = [f"≤ {schema['maximum']}"] if "maximum" in schema else []
    high += [f"< {schema['exclusiveMaximum']}"] if "exclusiveMaximum" in schema else []
    step = [f"a multiple of {schema['multipleOf']}"] if "multipleOf" in schema else []
    return " " + ", ".join(low + high + step) if low or high or step else ""


def _at_least(count: int, what: str) -> str:
    return "" if not count else "non-empty " if count == 1 else f"at least {count} {what}: "


def inline_yaml(value) -> str:
    """``value`` as one line of YAML flow style: ``null``, ``[0]``, ``{max_new_tokens: 128, top_p: 0.9}``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(inline_yaml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{inline_yaml(k)}: {inline_yaml(v)}" for k, v in value.items()) + "}"
    text = str(value)
    plain = text and not any(c in text for c in ",:{}[]#&*!|>'\"%@`") and yaml.safe_load(text) == text
    return text if plain else yaml.safe_dump(text, default_style='"', width=10**9).strip()


# --- the generated part of config/README.md ---------------------------------------------------


def _split(text: str, where: str) -> tuple[str, str, str]:
    """``text`` as (before and BEGIN, the generated block, END and after)."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{where} has no generated table: put the line {BEGIN} and the line {END} where it goes.")
    start += len(BEGIN)
    return text[:start], text[start:end], text[end:]


def rewritten(text: str, schema: dict, where: str = "config/README.md") -> str:
    """``text`` with the block between the markers replaced by the table of ``schema``."""
    before, _, after = _split(text, where)
    return f"{before}\n\n{markdown_table(schema)}\n\n{after}"


def first_difference(text: str, schema: dict, where: str = "config/README.md") -> str | None:
    """``None`` when the generated block of ``text`` is ``schema``'s table; else a line naming the first stale key."""
    _, block, _ = _split(text, where)
    have = block.strip("\n").splitlines()
    want = markdown_table(schema).splitlines()
    if have == want:
        return None
    hint = "run python -m biasflow.config_docs to rewrite it from the schema"
    # The tables may differ in length: where the shorter one ends is then the first difference.
    index = next((i for i, (h, w) in enumerate(zip(have, want, strict=False)) if h != w), min(len(have), len(want)))
    if index < len(HEADER):
        return f"{where}: the generated table's header differs from the generator's; {hint}."
    have_keys, want_keys = [_row_key(line) for line in have], [_row_key(line) for line in want]
    mine = have_keys[index] if index < len(have) else None
    theirs = want_keys[index] if index < len(want) else None
    if theirs is not None and theirs not in have_keys:
        what = f"key {theirs} is in the schema but not in the table"
    elif mine is not None and mine not in want_keys:
        what = f"key {mine} is in the table but no longer in the schema"
    elif mine == theirs:
        what = f"the row of key {theirs} differs from the schema"
    else:
        what = f"key {theirs} is out of the schema's order"
    return f"{where} is stale: {what}; {hint}."


def _row_key(line: str) -> str:
    cell = line.strip().removeprefix("|").split(" | ", 1)[0].strip()
    return cell.strip("`")


def main(argv: list[str] | None = None) -> int:
    from biasflow.schema import config_schema

    parser = argparse.ArgumentParser(
        prog="python -m biasflow.config_docs",
        description="Rewrite the generated key table of config/README.md from the config schema.",
    )
    parser.add_argument(
        "--readme", default="config/README.md", help="the file holding the table (default: %(default)s)"
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming the first stale key")
    args = parser.parse_args(argv)
    readme = Path(args.readme)
    if not readme.is_file():
        print(f"{readme} not found; run from the repository root or give --readme.", file=sys.stderr)
        return 2
    text, schema = readme.read_text(), config_schema()
    try:
        if args.check:
            problem = first_difference(text, schema, str(readme))
            if problem:
                print(problem, file=sys.stderr)
                return 1
            return 0
        new = rewritten(text, schema, str(readme))
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if new != text:
        readme.write_text(new)
        print(f"{readme}: rewrote the key table ({len(key_docs(schema))} keys)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

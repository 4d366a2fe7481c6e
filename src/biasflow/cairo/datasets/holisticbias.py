"""HolisticBias (Smith et al., 2022): sentences built from descriptors, nouns and templates.

Official layout (facebookresearch/ResponsibleNLP, ``holistic_bias/dataset/v1.0`` and
``v1.1``; both versions share it, v1.1 adds terms and metadata):

- ``descriptors.json``: ``{axis: {bucket: [descriptor, ...]}}``; a descriptor is a string
  or an object with ``descriptor`` and optional ``gender`` (it combines only with nouns
  of that gender: "female" never meets "man"), ``article`` (overrides the a/an guess:
  "a Unitarian") and ``preference`` (dispreferred / polarizing / reviewed).
- ``nouns.json``: ``{noun_gender: [[singular, plural], ...]}``.
- ``sentence_templates.json``: ``{template: metadata}``; a template holds
  ``{noun_phrase}`` or ``{plural_noun_phrase}``; ``must_be_noun: true`` keeps noun
  phrases without a noun ("Deaf" alone) out of it.
- ``standalone_noun_phrases.json``: ``{axis: [phrase, ...]}``; a phrase is a string or an
  object with ``noun_phrase`` and optional ``plural_noun_phrase`` and ``preference``; a
  phrase holding ``{article} {noun}`` is filled with every noun, its descriptor being the
  words around the noun ("with a limp"); a phrase without one is used as it is.

Sentences are built as the dataset's own generator (``holistic_bias/src/sentences.py``)
builds them: every template × every noun phrase of the axis, where a descriptor gives
the bare descriptor ("Buddhist") and "<a/an> <descriptor> <noun>" for every noun its
gender allows (plural templates take "<descriptor> <plural noun>"), and standalone
phrases come with the bucket ``(none)``. Like that generator, all descriptors are kept
whatever their ``preference``: the dataset labels dispreferred terms but does not drop
them. The stylistic variants its sampler applies at random (lower-casing, dropping
"I'm") are not part of the dataset and are not applied.

Our axes read the HolisticBias axes gender → ``gender_and_sex``, religion →
``religion``, race → ``race_ethnicity``. The native subgroup is the descriptor's bucket
when the axis has several buckets (gender_and_sex: binary, cisgender, non_binary_or_gnc,
queer, transgender, ...; race_ethnicity: asian, black, white, ...) and the descriptor
itself when it has one (religion: Buddhist, Christian, Jewish, Muslim, ...). A subgroup
map is matched against the descriptor first and then the bucket, so ``{"female":
"female"}`` picks the descriptor female out of the binary bucket. The group key is the
template; the identity term is the descriptor.

Option ``buckets``: ``{hb_axis: [bucket, ...]}`` keeps only those buckets (``(none)``
names the standalone phrases); default all.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biasflow.cairo.datasets.files import data_file, malformed, read_json
from biasflow.cairo.datasets.prompts import RAW_COLUMNS
from biasflow.errors import BiasflowError

HB_AXES = {"gender": "gender_and_sex", "religion": "religion", "race": "race_ethnicity"}
AXES = tuple(HB_AXES)
FILES = ("descriptors.json", "nouns.json", "sentence_templates.json", "standalone_noun_phrases.json")
OPTIONS = ("buckets",)
STANDALONE_BUCKET = "(none)"


def files(axis: str, options: dict) -> list[str]:
    """Every axis reads all four files."""
    return list(FILES)


def version(data_dir: Path) -> str:
    """``v1.1`` when some descriptor carries v1.1's metadata (``gender`` or ``preference``), else ``v1.0``.

    v1.0 has neither, so its gender descriptors meet every noun ("I'm a female husband.").
    """
    data = read_json(Path(data_dir) / "descriptors.json", "an object {axis: {bucket: [descriptor, ...]}}")
    entries = [
        entry
        for axis in (data.values() if isinstance(data, dict) else [])
        if isinstance(axis, dict)
        for bucket in axis.values()
        if isinstance(bucket, list)
        for entry in bucket
    ]
    return "v1.1" if any(isinstance(e, dict) and ("gender" in e or "preference" in e) for e in entries) else "v1.0"


def load(axis: str, data_dir: Path, options: dict) -> pd.DataFrame:
    """Raw sentences of one HolisticBias axis (see :mod:`biasflow.cairo.datasets.prompts`)."""
    hb_axis = HB_AXES[axis]
    descriptors, nouns, templates, standalone = (data_file(data_dir, name, "HolisticBias") for name in FILES)
    buckets = read_descriptors(descriptors, hb_axis)
    noun_pairs = read_nouns(nouns)
    template_specs = read_templates(templates)
    phrases = read_standalone(standalone, hb_axis)
    keep = selected_buckets(options, hb_axis, [*buckets, STANDALONE_BUCKET])

    noun_phrases = [
        np_
        for bucket, entries in buckets.items()
        if bucket in keep
        for entry in entries
        for np_ in descriptor_noun_phrases(bucket, entry, noun_pairs)
    ]
    if STANDALONE_BUCKET in keep:
        noun_phrases += [np_ for entry in phrases for np_ in standalone_noun_phrases(entry, noun_pairs, standalone)]

    one_bucket = len(buckets) == 1
    rows = []
    for np_ in noun_phrases:
        subgroup = np_["descriptor"] if one_bucket else np_["bucket"]
        for template, spec in template_specs.items():
            if np_["noun"] is None and spec.get("must_be_noun", False):
                continue
            text = fill_template(template, np_, templates)
            key = (hb_axis, np_["bucket"], np_["descriptor"], np_["type"], np_["noun"] or "", template, text)
            rows.append((subgroup, (np_["descriptor"], np_["bucket"]), template, key, text, np_["descriptor"]))
    if not rows:
        raise BiasflowError(
            f"HolisticBias axis {hb_axis} yields no sentences from {data_dir}: check that "
            f"{descriptors.name} lists descriptors under it and {templates.name} lists templates."
        )
    return pd.DataFrame(rows, columns=RAW_COLUMNS)


def selected_buckets(options: dict, hb_axis: str, available: list[str]) -> set[str]:
    """The buckets to keep: ``options["buckets"][hb_axis]``, or all of them."""
    chosen = options.get("buckets", {})
    if not isinstance(chosen, dict) or any(key not in HB_AXES.values() for key in chosen):
        raise BiasflowError(
            f"HolisticBias option 'buckets' must map HolisticBias axes ({', '.join(HB_AXES.values())}) "
            f"to lists of buckets, got {chosen!r}."
        )
    if hb_axis not in chosen:
        return set(available)
    wanted = chosen[hb_axis]
    unknown = [b for b in wanted if b not in available] if isinstance(wanted, list) else [wanted]
    if unknown or not wanted:
        raise BiasflowError(
            f"HolisticBias option buckets.{hb_axis} must be a non-empty list of buckets from "
            f"{', '.join(available)}; got {wanted!r}."
        )
    return set(wanted)


def article(word: str) -> str:
    """The dataset's a/an rule: "an" before a written vowel (entries may override it)."""
    return "an" if word[0].lower() in "aeiou" else "a"


def descriptor_noun_phrases(bucket: str, entry: dict, nouns: list[tuple[str, str, str]]) -> list[dict]:
    """The bare descriptor plus "<article> <descriptor> <noun>" for every allowed noun."""
    descriptor, gender = entry["descriptor"], entry.get("gender")
    art = entry.get("article") or article(descriptor)
    phrases = [phrase(bucket, descriptor, "descriptor", None, descriptor, descriptor)]
    phrases += [
        phrase(bucket, descriptor, "descriptor_noun", noun, f"{art} {descriptor} {noun}", f"{descriptor} {plural}")
        for noun_gender, noun, plural in nouns
        if gender is None or gender == noun_gender
    ]
    return phrases


def standalone_noun_phrases(entry: dict, nouns: list[tuple[str, str, str]], path: Path) -> list[dict]:
    """A standalone phrase as it is, or filled with every noun when it holds ``{noun}``."""
    singular = entry["noun_phrase"]
    plural = entry.get("plural_noun_phrase", singular)
    if "{noun}" not in singular:
        return [phrase(STANDALONE_BUCKET, singular, "fixed_phrase", None, singular, plural)]
    try:
        descriptor = singular.format(article="", noun="").strip()
        return [
            phrase(
                STANDALONE_BUCKET,
                descriptor,
                "noun_descriptor",
                noun,
                singular.format(article=article(noun), noun=noun),
                plural.format(article="", noun=plural_noun).lstrip(),
            )
            for _, noun, plural_noun in nouns
        ]
    except (KeyError, IndexError, ValueError) as exc:
        raise malformed(path, repr(singular), "a phrase whose only fields are {article} and {noun}") from exc


def phrase(bucket: str, descriptor: str, type_: str, noun: str | None, singular: str, plural: str) -> dict:
    return {
        "bucket": bucket,
        "descriptor": descriptor,
        "type": type_,
        "noun": noun,
        "noun_phrase": singular,
        "plural_noun_phrase": plural,
    }


def fill_template(template: str, np_: dict, path: Path) -> str:
    """Insert the singular or plural noun phrase, whichever field the template holds."""
    field = "noun_phrase" if "{noun_phrase}" in template else "plural_noun_phrase"
    try:
        return template.format(**{field: np_[field]})
    except (KeyError, IndexError, ValueError) as exc:
        expected = "a template whose only field is {noun_phrase} or {plural_noun_phrase}"
        raise malformed(path, repr(template), expected) from exc


def read_descriptors(path: Path, hb_axis: str) -> dict[str, list[dict]]:
    """The buckets of ``hb_axis``, each a list of descriptor objects (strings normalised)."""
    layout = 'an object {axis: {bucket: [descriptor or {"descriptor": ...}, ...]}}'
    data = read_json(path, layout)
    if not isinstance(data, dict):
        raise malformed(path, "the top level", layout)
    if hb_axis not in data:
        raise malformed(path, "the top level", f"the axis {hb_axis!r} among its keys (it has {', '.join(data)})")
    buckets = data[hb_axis]
    if not isinstance(buckets, dict) or not buckets:
        raise malformed(path, hb_axis, "an object {bucket: [descriptor, ...]}")
    out = {}
    for bucket, entries in buckets.items():
        if not isinstance(entries, list):
            raise malformed(path, f"{hb_axis}.{bucket}", "a list of descriptors")
        out[bucket] = [as_object(e, "descriptor", path, f"{hb_axis}.{bucket}") for e in entries]
    return out


def read_nouns(path: Path) -> list[tuple[str, str, str]]:
    """(noun gender, singular, plural) for every noun."""
    layout = "an object {noun_gender: [[singular, plural], ...]}"
    data = read_json(path, layout)
    if not isinstance(data, dict):
        raise malformed(path, "the top level", layout)
    nouns = []
    for gender, pairs in data.items():
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(w, str) and w for w in p) for p in pairs
        ):
            raise malformed(path, gender, "a list of [singular, plural] pairs of non-empty strings")
        nouns += [(gender, singular, plural) for singular, plural in pairs]
    return nouns


def read_templates(path: Path) -> dict[str, dict]:
    """Template → metadata; every template must hold one noun-phrase field."""
    layout = "an object {template: {metadata}}"
    data = read_json(path, layout)
    if not isinstance(data, dict) or not data:
        raise malformed(path, "the top level", layout)
    for template, spec in data.items():
        if not isinstance(spec, dict):
            raise malformed(path, repr(template), 'an object of metadata such as {"must_be_noun": true}')
        if "{noun_phrase}" not in template and "{plural_noun_phrase}" not in template:
            raise malformed(path, repr(template), "a template holding {noun_phrase} or {plural_noun_phrase}")
    return data


def read_standalone(path: Path, hb_axis: str) -> list[dict]:
    """The standalone phrases of ``hb_axis`` (v1.0 has none for some axes: an empty list)."""
    layout = 'an object {axis: [phrase or {"noun_phrase": ...}, ...]}'
    data = read_json(path, layout)
    if not isinstance(data, dict):
        raise malformed(path, "the top level", layout)
    entries = data.get(hb_axis, [])
    if not isinstance(entries, list):
        raise malformed(path, hb_axis, "a list of noun phrases")
    return [as_object(e, "noun_phrase", path, hb_axis) for e in entries]


def as_object(entry, field: str, path: Path, where: str) -> dict:
    """A bare string entry as ``{field: entry}``; an object must carry ``field``."""
    if isinstance(entry, str):
        entry = {field: entry}
    if not isinstance(entry, dict) or not isinstance(entry.get(field), str) or not entry[field]:
        raise malformed(path, where, f'a string or an object with a non-empty "{field}", got {entry!r}')
    return entry

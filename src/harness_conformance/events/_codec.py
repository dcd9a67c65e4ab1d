"""The JSON form of an event's ``data`` and of a chunk (used by `events`).

A modelled field goes on disk under its camelCase name (``call_id`` is ``callId``); an
optional field holding None is left out; every other key sits in the object's ``extra``
and is written back after the modelled ones. An optional key the line sets to ``null``
reads as None and stays in ``extra`` as ``None``, so it is written back as ``null``
unless the field has since been given a value. A durable event whose line left out a key
that an older layout of the reference implementation omits (`_legacy_layouts`) gets the
value that layout implies, and the key is named in the event's ``absent`` so that writing
leaves it out again while the value is unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from ._chunks import CHUNK_TYPES, Chunk
from ._legacy_layouts import absent_defaults

__all__ = [
    "chunk_from_json",
    "chunk_to_json",
    "clear_field_specs",
    "data_from_json",
    "data_to_json",
]

JsonObject: TypeAlias = dict[str, Any]
FieldSpec: TypeAlias = tuple[str, str, bool, Callable[[Any], bool]]

_BASE_FIELDS = frozenset({"type", "seq", "time", "extra", "envelope", "absent"})
_KINDS: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "str": (str,),
    "bool": (bool,),
    "JsonObject": (dict,),
    "list[Any]": (list,),
    "Chunk": (dict,),
}
_UNSET = object()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _accepts(annotation: str) -> Callable[[Any], bool]:
    """A check that a JSON value fits a field's annotation (``None`` allowed when optional)."""
    allowed: set[Any] = set()
    kinds: tuple[type, ...] = ()
    for part in (p.strip() for p in annotation.split("|")):
        if part == "None":
            allowed.add(None)
        elif part.startswith("Literal["):
            allowed.update(v.strip().strip("'\"") for v in part[8:-1].split(","))
        else:
            kinds += _KINDS[part]

    def check(value: Any) -> bool:
        if type(value) is bool and bool not in kinds:
            return value in allowed
        return (
            isinstance(value, kinds)
            or (type(value) is str and value in allowed)
            or (value is None and None in allowed)
        )

    return check


def _fields(cls: type[Any]) -> tuple[FieldSpec, ...]:
    """(attribute, JSON key, optional, type check) for each modelled field of ``cls``."""
    specs = _FIELDS.get(cls)
    if specs is None:
        if len(_FIELDS) >= _MOST:  # event classes made on the fly do not pile up
            _FIELDS.clear()
        specs = _FIELDS[cls] = tuple(
            (f.name, _camel(f.name), f.default is None, _accepts(str(f.type)))
            for f in dataclasses.fields(cls)
            if f.name not in _BASE_FIELDS
        )
    return specs


_FIELDS: dict[type[Any], tuple[FieldSpec, ...]] = {}
_MOST = 256
"""How many event and chunk classes `_fields` keeps the field specs of."""


def clear_field_specs() -> None:
    """Forget the field specs `_fields` read from the event and chunk classes."""
    _FIELDS.clear()


def data_to_json(obj: Any) -> JsonObject:
    """The ``data`` object of an event (or the body of a chunk, without ``type``)."""
    data: JsonObject = {}
    for attr, key, optional, _ in _fields(type(obj)):
        value = getattr(obj, attr)
        if optional and value is None:
            continue
        data[key] = chunk_to_json(value) if attr == "chunk" else value
    for key, value in obj.extra.items():
        if value is not None or key not in data:
            data[key] = value
    for key in getattr(obj, "absent", ()):
        rest = {k: v for k, v in data.items() if k != key}
        if key in data and absent_defaults(obj.type, rest).get(key, _UNSET) == data[key]:
            del data[key]
    return data


def data_from_json(cls: type[Any], data: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Keyword arguments for ``cls`` from its ``data``; raises ValueError naming ``where``
    for a missing or mistyped modelled key."""
    kwargs: dict[str, Any] = {}
    known = set()
    absent: set[str] = set()
    for attr, key, optional, accepts in _fields(cls):
        if optional and data.get(key, _UNSET) is None:
            continue  # an explicit null stays in extra, to be written back as read
        known.add(key)
        if key in data:
            value = data[key]
        elif optional:
            continue
        elif key in (implied := absent_defaults(cls.type, data)):
            value = implied[key]
            absent.add(key)
        else:
            raise ValueError(f"{where}: {cls.type!r} needs data key {key!r}")
        if not accepts(value):
            shown = repr(value)[:60]
            raise ValueError(f"{where}: {cls.type!r} data key {key!r} cannot be {shown}")
        kwargs[attr] = chunk_from_json(value, f"{where}.chunk") if attr == "chunk" else value
    kwargs["extra"] = {k: v for k, v in data.items() if k not in known}
    if absent:
        kwargs["absent"] = frozenset(absent)
    return kwargs


def chunk_to_json(chunk: Chunk) -> JsonObject:
    """The on-disk form of a chunk: ``{"type": ..., camelCase fields...}``."""
    return {"type": chunk.type, **data_to_json(chunk)}


def chunk_from_json(obj: Any, where: str = "chunk") -> Chunk:
    """Read a chunk; raises ValueError naming ``where`` when it is malformed."""
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ValueError(f"{where}: a chunk is an object with a string 'type'")
    cls = CHUNK_TYPES.get(obj["type"])
    if cls is None:
        raise ValueError(f"{where}: unknown chunk type {obj['type']!r}")
    body = {k: v for k, v in obj.items() if k != "type"}
    chunk: Chunk = cls(**data_from_json(cls, body, where))
    return chunk

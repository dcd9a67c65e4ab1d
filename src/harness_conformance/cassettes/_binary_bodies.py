"""The base64 bodies of a composed cassette, decoded, for the secret scanner.

A body that is not UTF-8 is kept as base64: this library's format writes it as
``binary: ...``, stock vcrpy as ``string: !!binary ...`` (or a request ``body:
!!binary ...``). Such a body is often compressed text, a request sent with
``content-encoding: gzip`` or a brotli reply read without the ``brotli`` package, and
a key inside it is invisible to a scan of the file. `binary_bodies` gives each one's
field, its decoded text and where it starts, so the scanner can look inside.

The layers come from the ``content-encoding`` header beside the body; without one, a
gzip, zstd or zlib header at the start of the data says what it is (brotli has none). The
decoded size is held to the body size limit; a body that does not decode, or decodes
past the limit, is left out (the loaders refuse the second).
"""

from __future__ import annotations

import binascii
from collections.abc import Iterator
from typing import Any

import yaml

from ._decompress import content_encodings, decode_layers
from ._stream_bodies import child_node

__all__ = ["binary_bodies", "sniff_encodings"]

_BINARY_TAG = "tag:yaml.org,2002:binary"


def sniff_encodings(data: bytes) -> list[str]:
    """The encoding a body's first bytes announce: ``gzip`` or ``zstd`` for their magic
    numbers, ``deflate`` for a zlib header, none otherwise."""
    if data[:2] == b"\x1f\x8b":
        return ["gzip"]
    if data[:4] == b"\x28\xb5\x2f\xfd":
        return ["zstd"]
    if len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0:
        return ["deflate"]
    return []


def _headers(node: yaml.Node | None) -> dict[str, Any]:
    """The ``content-encoding`` entries of a headers mapping, as plain values."""
    found: dict[str, Any] = {}
    if not isinstance(node, yaml.MappingNode):
        return found
    for name, value in node.value:
        if isinstance(name, yaml.ScalarNode) and str(name.value).lower() == "content-encoding":
            if isinstance(value, yaml.ScalarNode):
                found[name.value] = str(value.value)
            elif isinstance(value, yaml.SequenceNode):
                found[name.value] = [
                    str(item.value) for item in value.value if isinstance(item, yaml.ScalarNode)
                ]
    return found


def _base64(node: yaml.Node | None, *, tagged: bool) -> bytes | None:
    if not isinstance(node, yaml.ScalarNode) or not isinstance(node.value, str):
        return None
    if tagged and node.tag != _BINARY_TAG:
        return None
    try:
        return binascii.a2b_base64("".join(node.value.split()).encode("ascii"))
    except (binascii.Error, UnicodeEncodeError):
        return None


def _decoded(data: bytes, encodings: list[str]) -> tuple[str, str] | None:
    """``(text, how)`` of a body: decoded through its layers (``how`` names them) or,
    when it has none, as it is."""
    layers = encodings or sniff_encodings(data)
    if layers:
        try:
            data = decode_layers(data, layers)
        except ValueError:  # damaged, or past the body size limit (BodyTooLarge)
            return None
    how = f"a {'+'.join(layers)}-compressed body" if layers else "a base64 body"
    return data.decode("utf-8", "replace"), how


def binary_bodies(root: yaml.Node | None) -> Iterator[tuple[str, str, str, tuple[int, int]]]:
    """``(field, text, how, place)`` of every base64 body in a cassette's node tree:
    its dotted field, its decoded text, what it was (``a gzip-compressed body``) and
    the 0-based line and column where it starts."""
    interactions = child_node(root, "interactions")
    if not isinstance(interactions, yaml.SequenceNode):
        return
    seen: set[int] = set()  # a node repeated through an alias is decoded once
    for number, interaction in enumerate(interactions.value):
        for side in ("request", "response"):
            part = child_node(interaction, side)
            body = child_node(part, "body")
            field = f"interactions[{number}].{side}.body"
            candidates = [
                (f"{field}.binary", child_node(body, "binary"), False),
                (f"{field}.string", child_node(body, "string"), True),
                (field, body, True),
            ]
            for where, node, tagged in candidates:
                if node is None or id(node) in seen:
                    continue
                data = _base64(node, tagged=tagged)
                if data is None:
                    continue
                seen.add(id(node))
                decoded = _decoded(data, content_encodings(_headers(child_node(part, "headers"))))
                if decoded is not None:
                    place = (node.start_mark.line, node.start_mark.column)
                    yield where, decoded[0], decoded[1], place

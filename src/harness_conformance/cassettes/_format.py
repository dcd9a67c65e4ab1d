"""The harness_conformance cassette format: a vcrpy serializer.

Register this module on a ``vcr.VCR`` with ``register_serializer(SERIALIZER_NAME,
module)``; `serialize` and `deserialize` are the two functions vcrpy calls. A cassette
is vcrpy YAML plus a ``harness_conformance`` header (``format``, ``library``,
``recorded_at`` in UTC, and the ``model`` and ``host`` of the first request). Bodies
are tagged mappings (JSON as structured YAML, a server-sent event stream as a literal
block with one line per event; see `harness_conformance.cassettes._sse`), compressed
response bodies are decoded, and only the headers in `KEPT_REQUEST_HEADERS` and
`KEPT_RESPONSE_HEADERS` are kept, with lower-case names. Loading parses the document
once, with the C loader when PyYAML has libyaml, and gives back every body byte for
byte, within the limits on outside data (YAML aliases and depth, decoded body size,
request URLs that parse). Files of format 1 (event streams as lists of parsed events)
load as well. A document without the header is a stock vcrpy cassette and is passed
through, with pydantic-ai ``parsed_body`` entries turned back into bodies.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast
from urllib.parse import urlsplit

import yaml
from vcr.serializers import yamlserializer  # type: ignore[import-untyped]

from .._version import __version__
from ..errors import CassetteError
from ..parsing import YamlTextError, load_yaml
from ._damage import Corrupt, Field, expect, kind_of, mark_of, render_field
from ._decompress import (
    ENCODINGS,
    BodyTooLarge,
    check_encoded,
    check_size,
    content_encodings,
    decompress,
)
from ._sse import BlockText, BodyError, QuotedLine, decode_body, encode_body

__all__ = [
    "FORMAT_VERSION",
    "KEPT_REQUEST_HEADERS",
    "KEPT_RESPONSE_HEADERS",
    "SERIALIZER_NAME",
    "VCR_YAML_LOADER",
    "decoded_response",
    "deserialize",
    "load_document",
    "load_parsed",
    "serialize",
]

SERIALIZER_NAME = "harness_conformance"
"""The name this serializer is registered under on a ``vcr.VCR``."""

FORMAT_VERSION = 2
"""The ``harness_conformance.format`` this module writes and the newest it reads (format
1, with event streams stored as lists of parsed events, still loads)."""

KEPT_REQUEST_HEADERS = frozenset({"content-type"})
"""Request headers written to a cassette; every other one is dropped."""

KEPT_RESPONSE_HEADERS = frozenset(
    {"content-type", "retry-after", "retry-after-ms", "x-should-retry"}
)
"""Response headers written to a cassette: the ones that change what a client does with
the response. ``content-encoding`` is kept too while a body is still encoded."""

VCR_YAML_LOADER: type[Any] = getattr(yamlserializer, "_CassetteLoader", yaml.SafeLoader)
"""vcrpy's safe YAML loader (with the Python tags of stock cassettes), used via `load_yaml`."""

# A subclass, so the representer below does not leak into other users of PyYAML; the
# libyaml emitter when PyYAML has it, since it is several times faster.
_Dumper = cast(
    "type[yaml.SafeDumper]",
    type("_Dumper", (getattr(yaml, "CSafeDumper", yaml.SafeDumper),), {}),
)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = None
    if data and not data.strip("\r\n"):
        style = '"'  # line endings alone read best escaped: "\n\n"
    elif "\n" in data.rstrip("\n"):
        style = "|"
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _represent_block(dumper: yaml.SafeDumper, data: BlockText) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style="|")


def _represent_quoted(dumper: yaml.SafeDumper, data: QuotedLine) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style='"')


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(BlockText, _represent_block)
_Dumper.add_representer(QuotedLine, _represent_quoted)


# -- compressed bodies -------------------------------------------------------------------


def _values(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(item) for item in value]
    return [str(value)]


def _check_body(response: Mapping[str, Any], field: Field) -> None:
    """Refuse a response body larger than the body size limit, or one a client would
    decode past it."""
    try:
        check_encoded(response)
    except BodyTooLarge as exc:
        raise Corrupt(str(exc), (*field, "body")) from None


def _check_request_body(body: object, field: Field) -> object:
    """``body`` when it is within the body size limit; else `Corrupt` naming ``field``."""
    if isinstance(body, str | bytes):
        try:
            check_size(body)
        except BodyTooLarge as exc:
            raise Corrupt(str(exc), field) from None
    return body


def _check_uri(uri: str, field: Field) -> str:
    try:
        urlsplit(uri).port  # noqa: B018 - reading the port checks it
    except ValueError as exc:
        raise Corrupt(f"the request uri {uri!r} is not a valid URL ({exc})", field) from None
    return uri


def decoded_response(response: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a vcrpy response with gzip, deflate and brotli bodies decoded.

    Decoded layers leave ``content-encoding`` and ``content-length`` is set to the new
    size. A layer that cannot be decoded (brotli without the ``brotli`` package, a
    damaged stream) stays, with the layers under it, and keeps its header. A body
    larger than the body size limit, or one that decodes to more, raises `BodyTooLarge`
    (a ValueError; see `harness_conformance.cassettes._decompress`).
    """
    given = response.get("body")
    if isinstance(given, Mapping) and isinstance(given.get("string"), str | bytes):
        check_size(given["string"])
    result = copy.deepcopy(dict(response))
    headers, body = result.get("headers"), result.get("body")
    if not isinstance(headers, dict) or not isinstance(body, dict) or body.get("string") is None:
        return result
    names = [name for name in headers if str(name).lower() == "content-encoding"]
    if not names:
        return result
    encodings = content_encodings(headers)
    data = body["string"]
    data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    remaining = list(encodings)
    while remaining and remaining[-1] in ENCODINGS:
        try:
            data = decompress(data, remaining[-1])
        except BodyTooLarge:
            raise
        except ValueError:
            break  # this layer and the ones under it stay encoded, and say so
        remaining.pop()
    if encodings and len(remaining) == len(encodings):
        return result
    for name in names:
        del headers[name]
    if remaining:
        headers["content-encoding"] = [", ".join(remaining)]
    for name in [name for name in headers if str(name).lower() == "content-length"]:
        headers[name] = [str(len(data))]
    body["string"] = data
    return result


# -- writing -----------------------------------------------------------------------------


def _headers_out(headers: Any, kept: frozenset[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in (headers or {}).items():
        lowered = str(name).lower()
        if lowered in kept:
            out.setdefault(lowered, []).extend(_values(value))
    return out


def _content_type(headers: Any) -> str:
    for name, value in (headers or {}).items():
        if str(name).lower() == "content-type":
            return _values(value)[0].lower() if _values(value) else ""
    return ""


def _request_out(request: Mapping[str, Any]) -> dict[str, Any]:
    headers = request.get("headers")
    return {
        "method": request["method"],
        "uri": request["uri"],
        "headers": _headers_out(headers, KEPT_REQUEST_HEADERS),
        "body": encode_body(request.get("body"), _content_type(headers)),
    }


def _response_out(response: Mapping[str, Any]) -> dict[str, Any]:
    decoded = decoded_response(response)
    headers = decoded.get("headers")
    kept = KEPT_RESPONSE_HEADERS
    if any(str(name).lower() == "content-encoding" for name in headers or {}):
        kept = kept | {"content-encoding"}
    out = {key: value for key, value in decoded.items() if key not in ("headers", "body")}
    out["headers"] = _headers_out(headers, kept)
    out["body"] = encode_body((decoded.get("body") or {}).get("string"), _content_type(headers))
    return out


def _header(interactions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    model = host = None
    if interactions:
        request = interactions[0]["request"]
        body = request["body"] or {}
        value = json.loads(body["json"]) if isinstance(body.get("json"), str) else None
        if isinstance(value, dict) and isinstance(value.get("model"), str):
            model = value["model"]
        host = urlsplit(str(request["uri"])).netloc.rsplit("@", 1)[-1] or None
    return {
        "format": FORMAT_VERSION,
        "library": __version__,
        "recorded_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "model": model,
        "host": host,
    }


def serialize(cassette_dict: Mapping[str, Any]) -> str:
    """The YAML text of what vcrpy hands a serializer (version, interactions, metadata)."""
    interactions = [
        {"request": _request_out(item["request"]), "response": _response_out(item["response"])}
        for item in cassette_dict["interactions"]
    ]
    document: dict[str, Any] = {"harness_conformance": _header(interactions)}
    document["interactions"] = interactions
    if cassette_dict.get("metadata"):
        document["metadata"] = cassette_dict["metadata"]
    document["version"] = cassette_dict.get("version", 1)
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


# -- reading -----------------------------------------------------------------------------


def _load_body(body: Any, field: Field, version: int) -> str | bytes | None:
    try:
        return decode_body(body, version)
    except BodyError as exc:
        raise Corrupt(str(exc), (*field, *exc.where)) from exc


def _load_headers(headers: Any, field: Field) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in expect(headers, Mapping, field, "headers").items():
        values = value if isinstance(value, list) else [value]
        if not isinstance(name, str) or not all(isinstance(v, str) for v in values):
            raise Corrupt("a header is a name with a list of strings", (*field, str(name)))
        out[name] = list(values)
    return out


def _load_interaction(item: Any, field: Field, version: int) -> dict[str, Any]:
    item = expect(item, Mapping, field, "an interaction")
    request = expect(item.get("request"), Mapping, (*field, "request"), "request")
    response = expect(item.get("response"), Mapping, (*field, "response"), "response")
    req, resp = (*field, "request"), (*field, "response")
    status = expect(response.get("status"), Mapping, (*resp, "status"), "status")
    code, message = status.get("code"), status.get("message")
    if not isinstance(code, int) or isinstance(code, bool):
        raise Corrupt("status.code must be an integer", (*resp, "status", "code"))
    if message is not None and not isinstance(message, str):
        raise Corrupt("status.message must be a string", (*resp, "status", "message"))
    loaded_response = {key: value for key, value in response.items() if key != "body"}
    loaded_response["status"] = {"code": code, "message": message}
    loaded_response["headers"] = _load_headers(response.get("headers"), (*resp, "headers"))
    body = _load_body(response.get("body"), (*resp, "body"), version)
    loaded_response["body"] = {"string": body}
    _check_body(loaded_response, resp)
    return {
        "request": {
            "method": expect(request.get("method"), str, (*req, "method"), "method"),
            "uri": _check_uri(expect(request.get("uri"), str, (*req, "uri"), "uri"), (*req, "uri")),
            "body": _check_request_body(
                _load_body(request.get("body"), (*req, "body"), version), (*req, "body")
            ),
            "headers": _load_headers(request.get("headers"), (*req, "headers")),
        },
        "response": loaded_response,
    }


def _interactions(document: Mapping[str, Any]) -> list[Any]:
    interactions = document.get("interactions")
    if not isinstance(interactions, list):
        raise Corrupt(
            f"interactions must be a list, not {kind_of(interactions)}", ("interactions",)
        )
    return interactions


def _stock(document: Mapping[str, Any]) -> dict[str, Any]:
    loaded = []
    for index, item in enumerate(_interactions(document)):
        field: Field = ("interactions", index)
        item = expect(item, Mapping, field, "an interaction")
        request = dict(expect(item.get("request"), Mapping, (*field, "request"), "request"))
        response = dict(expect(item.get("response"), Mapping, (*field, "response"), "response"))
        if isinstance(request.get("uri"), str):
            _check_uri(request["uri"], (*field, "request", "uri"))
        _check_body(response, (*field, "response"))
        _check_request_body(request.get("body"), (*field, "request", "body"))
        if "parsed_body" in request:
            request["body"] = json.dumps(request.pop("parsed_body"))
        if "parsed_body" in response:
            response["body"] = {"string": json.dumps(response.pop("parsed_body"))}
        loaded.append({**item, "request": request, "response": response})
    return {**document, "interactions": loaded}


def _parse(text: str) -> Any:
    try:
        return load_yaml(text, loader=VCR_YAML_LOADER)
    except YamlTextError as exc:
        raise Corrupt(str(exc.problem)) from exc
    except yaml.MarkedYAMLError as exc:
        raise Corrupt(f"it is not valid YAML ({exc.problem})") from exc
    except yaml.YAMLError as exc:
        raise Corrupt(f"it is not valid YAML ({exc})") from exc


def _from_document(document: Any) -> dict[str, Any]:
    document = expect(document, Mapping, (), "the document")
    if "harness_conformance" not in document:
        return _stock(document)
    header = expect(
        document["harness_conformance"], Mapping, ("harness_conformance",), "the header"
    )
    version = header.get("format")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise Corrupt(
            "harness_conformance.format must be a positive integer", ("harness_conformance",)
        )
    if version > FORMAT_VERSION:
        raise Corrupt(
            f"it is in cassette format {version}, and this harness-conformance "
            f"{__version__} reads format {FORMAT_VERSION} at most",
            ("harness_conformance", "format"),
            "Upgrade harness-conformance, or record the cassette again.",
        )
    loaded = {key: value for key, value in document.items() if key != "interactions"}
    loaded["interactions"] = [
        _load_interaction(item, ("interactions", index), version)
        for index, item in enumerate(_interactions(document))
    ]
    return loaded


_UNPARSED = object()


def load_document(text: str, *, path: str | None = None) -> dict[str, Any]:
    """The vcrpy cassette dict of a cassette text; `deserialize` with a file name.

    ``CassetteError(code="CASSETTE_CORRUPT")`` names ``path``, the YAML line and
    column when known, the interaction and what to do.
    """
    return _load(text, _UNPARSED, path)


def load_parsed(document: Any, text: str, *, path: str | None = None) -> dict[str, Any]:
    """`load_document` for a ``document`` a caller already parsed from ``text`` with
    `load_yaml` and `VCR_YAML_LOADER`, so the text is not parsed again (it is composed
    once more only to name the line of a damaged field)."""
    return _load(text, document, path)


def _load(text: str, document: Any, path: str | None) -> dict[str, Any]:
    try:
        return _from_document(_parse(text) if document is _UNPARSED else document)
    except Corrupt as exc:
        mark = getattr(exc.__cause__, "problem_mark", None) or (
            mark_of(text, exc.field) if exc.field else None
        )
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        if exc.field[:1] == ("interactions",) and len(exc.field) > 1:
            inside = render_field(exc.field[2:]) or "the interaction itself"
            where += f" (interaction {exc.field[1]}, {inside})"
        elif exc.field:
            where += f" ({render_field(exc.field)})"
        raise CassetteError(
            f"cassette {path or '<text>'} is damaged{where}: {exc.problem}. {exc.advice}",
            code="CASSETTE_CORRUPT",
            path=path,
        ) from exc.__cause__


def deserialize(cassette_string: str) -> dict[str, Any]:
    """The vcrpy cassette dict of a cassette text (ours or stock vcrpy YAML)."""
    return load_document(cassette_string)

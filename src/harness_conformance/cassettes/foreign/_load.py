"""Read third-party vcrpy cassettes of chat-completions traffic as `Interaction`s.

The file is read the way vcrpy reads it: ``*.json`` with vcrpy's JSON serializer,
anything else with its YAML serializer (a safe loader; ``!!binary`` scalars become
bytes). What a client would then receive is decoded into plain values:

- pydantic-ai's ``parsed_body`` form (a JSON body stored as a YAML mapping beside
  ``headers``) is read as that JSON value, on requests and responses alike.
- A bytes body is decoded by its ``content-encoding`` (gzip, deflate, br), as the HTTP
  client would, then read as UTF-8; a text body is taken as already decoded.
- A response is ``sse`` when its content-type is an event stream (or, with no
  content-type, when it starts with ``data:``), ``json`` when it parses as JSON
  (pretty-printed bodies included), ``text`` otherwise, and ``bytes`` when it is not
  UTF-8. An error response (status outside 2xx) whose text starts like JSON is read as
  JSON whatever its content-type says (Gemini answers a failed stream with a JSON error
  under ``text/event-stream``). Blank lines inside single-quoted YAML scalars are folded
  by YAML itself, so the SSE text is exactly what vcrpy hands the client.
- SSE bodies are parsed as the OpenAI SDK parses them: events end at a blank line,
  ``data:`` lines of one event are joined with newlines, comments are skipped, and
  ``[DONE]`` ends the stream. A last event whose closing blank line was trimmed by the
  YAML block style still counts. Each payload is parsed JSON, or the raw text when it
  is not JSON.
- The decoded body text (or bytes) is kept beside its reading (`Interaction.raw_body`),
  so the response can be served again as the server sent it.
- Header names are lowercased; repeated values are joined with ``", "``.
- The top-level ``version`` key is not required (vcrpy never checks it).
- A cassette in this library's own format (it has a ``harness_conformance`` header) is
  decoded by its serializer from the document already parsed, so its JSON and SSE
  bodies come back as the bytes that were recorded.

The file is untrusted: YAML is loaded within the alias budget and depth of
`harness_conformance.parsing._yaml`, compressed bodies within the body size limit of
`harness_conformance.cassettes._decompress`, JSON nested too deeply to read and request
URLs that do not parse are refused.

A file that cannot be read this way raises `CassetteError` with code
``CASSETTE_CORRUPT`` naming the file, the line when it is known, the interaction
index and what is wrong; a missing file raises ``CASSETTE_MISSING``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NoReturn
from urllib.parse import urlsplit

import yaml

from ...errors import CassetteError
from ...parsing import JsonTextError, YamlTextError, compose_yaml, load_yaml, parse_json
from .._decompress import BodyTooLarge, check_size, decompress
from .._format import VCR_YAML_LOADER
from .._stream_bodies import MISSING, handing, take

__all__ = ["BodyKind", "Interaction", "Screen", "load_foreign_cassette", "parse_sse"]

BodyKind = Literal["json", "sse", "text", "bytes"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FIX = "re-record the cassette or restore the file from its source"


@dataclass(frozen=True, kw_only=True)
class Interaction:
    """One recorded request and its response, as a client would have seen them."""

    index: int
    """Position in the cassette, from 0."""
    method: str
    """The HTTP method, upper case."""
    uri: str
    """The full request URL."""
    request_body: Any
    """The request body: its JSON value when it is JSON, else its text (None if empty)."""
    status: int
    """The HTTP status code of the response."""
    response_headers: Mapping[str, str] = field(default_factory=dict)
    """Response headers with lowercased names."""
    body_kind: BodyKind
    """How the response body reads: ``json``, ``sse``, ``text`` or ``bytes``."""
    body: Any
    """The JSON value, the tuple of SSE ``data:`` payloads, the text, or the bytes."""
    stream_done: bool = False
    """For ``sse`` bodies: whether the ``[DONE]`` sentinel arrived."""
    raw_body: str | bytes | None = None
    """The response body as the client received it (decoded by its content-encoding;
    text when it is UTF-8, else bytes); None for a body stored as ``parsed_body``."""

    @property
    def messages(self) -> list[Any]:
        """The request's chat-completions ``messages`` (empty when there are none)."""
        body = self.request_body
        found = body.get("messages") if isinstance(body, dict) else None
        return found if isinstance(found, list) else []

    @property
    def streamed(self) -> bool:
        """Whether the request asked for a streamed response."""
        return isinstance(self.request_body, dict) and self.request_body.get("stream") is True


_NOT_JSON = object()


def _json_or_not(text: str) -> Any:
    """The JSON value of ``text``, or `_NOT_JSON`; JSON nested too deeply to read raises
    `JsonTextError` (the one failure of `parse_json` on text that has no line)."""
    try:
        return parse_json(text)
    except JsonTextError as exc:
        if exc.line is None:
            raise
        return _NOT_JSON


def parse_sse(text: str) -> tuple[tuple[Any, ...], bool]:
    """The ``data:`` payloads of an event-stream body and whether ``[DONE]`` arrived.

    A payload nested too deeply to read raises `JsonTextError` (a ``ValueError``)."""
    payloads: list[Any] = []
    data: list[str] = []
    for line in [*_LINE_BREAK.split(text), ""]:
        if line:
            name, _, value = line.partition(":")
            if name == "data":
                data.append(value[1:] if value.startswith(" ") else value)
            continue
        if not data:
            continue
        payload = "\n".join(data)
        data = []
        if payload.startswith("[DONE]"):
            return tuple(payloads), True
        value = take(payload)
        if value is MISSING:
            value = _json_or_not(payload)
        payloads.append(payload if value is _NOT_JSON else value)
    return tuple(payloads), False


class _Reader:
    """Reads one cassette file; every failure names the file and, lazily, the line."""

    def __init__(self, path: Path, text: str, screen: Screen | None = None) -> None:
        self.path = path
        self.text = text
        self.screen = screen
        self._root: yaml.Node | None = None
        self._composed = False

    # -- failures ---------------------------------------------------------------------

    def _tree(self) -> yaml.Node | None:
        if not self._composed:
            self._composed = True
            try:
                self._root = compose_yaml(self.text)
            except yaml.YAMLError:
                self._root = None
        return self._root

    def _line_of(self, keys: Sequence[str | int]) -> int | None:
        node = self._tree()
        line = None if node is None else node.start_mark.line + 1
        for key in keys:
            child = None
            if isinstance(node, yaml.MappingNode):
                child = next((v for k, v in node.value if k.value == key), None)
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
                child = node.value[key] if 0 <= key < len(node.value) else None
            if child is None:
                break
            node, line = child, child.start_mark.line + 1
        return line

    def _interaction_at(self, line: int) -> int | None:
        node = self._tree()
        if not isinstance(node, yaml.MappingNode):
            return None
        items = next((v for k, v in node.value if k.value == "interactions"), None)
        if not isinstance(items, yaml.SequenceNode):
            return None
        for index, item in enumerate(items.value):
            if item.start_mark.line + 1 <= line <= item.end_mark.line + 1:
                return index
        return None

    def fail(
        self,
        what: str,
        *,
        index: int | None = None,
        keys: Sequence[str | int] = (),
        line: int | None = None,
    ) -> NoReturn:
        if line is None and (index is not None or keys):
            where_keys = ["interactions", index, *keys] if index is not None else keys
            line = self._line_of(where_keys)
        if index is None and line is not None:
            index = self._interaction_at(line)
        where = [str(self.path)]
        if line is not None:
            where.append(f"line {line}")
        if index is not None:
            where.append(f"interaction {index}")
        raise CassetteError(
            f"{': '.join(where)}: {what}; {_FIX}", code="CASSETTE_CORRUPT", path=str(self.path)
        )

    # -- the document -----------------------------------------------------------------

    def document(self) -> Any:
        if self.path.suffix.lower() == ".json":
            if self.screen is not None:
                self.screen(self.text, None)
            try:
                return parse_json(self.text)
            except JsonTextError as exc:
                self.fail(
                    f"not valid JSON ({exc.problem.removeprefix('not JSON: ')})", line=exc.line
                )
        try:
            screen, text = self.screen, self.text
            inspect = None if screen is None else lambda root: screen(text, lambda: root)
            document = load_yaml(self.text, loader=VCR_YAML_LOADER, inspect=inspect)
        except YamlTextError as exc:
            mark = exc.problem_mark
            self.fail(str(exc.problem), line=None if mark is None else mark.line + 1)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = None if mark is None else mark.line + 1
            problem = " ".join(str(p) for p in (exc.context, exc.problem) if p)
            self.fail(f"the YAML does not load ({problem or exc})", line=line)
        except yaml.YAMLError as exc:
            self.fail(f"the YAML does not load ({exc})")
        if isinstance(document, dict) and "harness_conformance" in document:
            from .._format import load_parsed

            return load_parsed(document, self.text, path=str(self.path))
        return document

    def interactions(self) -> list[Interaction]:
        document = self.document()
        if not isinstance(document, dict):
            self.fail("the top level is not a mapping with an 'interactions' list", line=1)
        items = document.get("interactions")
        if not isinstance(items, list):
            if items is None:
                self.fail("the 'interactions' key is missing", line=1)
            self.fail(f"'interactions' is {_a(items)}, not a list", keys=["interactions"])
        if not items:
            line = self._line_of(["interactions"])
            where = f"{self.path}: line {line}" if line is not None else str(self.path)
            raise CassetteError(
                f"{where}: the cassette holds no interactions, so there is nothing to replay "
                "or check; record it again, or delete it if the test no longer calls a model",
                code="CASSETTE_EMPTY",
                path=str(self.path),
            )
        return [self.interaction(index, item) for index, item in enumerate(items)]

    def _mapping(self, value: object, index: int, keys: list[str | int]) -> dict[str, Any]:
        if not isinstance(value, dict):
            shown = f"'{'.'.join(str(k) for k in keys)}'" if keys else "the interaction"
            kind = "missing" if value is None else f"{_a(value)}, not a mapping"
            self.fail(f"{shown} is {kind}", index=index, keys=keys[:-1] if value is None else keys)
        return value

    def interaction(self, index: int, item: object) -> Interaction:
        item = self._mapping(item, index, [])
        request = self._mapping(item.get("request"), index, ["request"])
        response = self._mapping(item.get("response"), index, ["response"])
        method, uri = request.get("method"), request.get("uri")
        if not isinstance(method, str) or not isinstance(uri, str):
            self.fail(
                "the request needs a 'method' and a 'uri' string", index=index, keys=["request"]
            )
        try:
            urlsplit(uri).port  # noqa: B018 - reading the port checks it
        except ValueError as exc:
            self.fail(
                f"the request uri {uri!r} is not a valid URL ({exc})",
                index=index,
                keys=["request", "uri"],
            )
        status = self._mapping(response.get("status"), index, ["response", "status"]).get("code")
        if not isinstance(status, int) or isinstance(status, bool):
            self.fail(
                f"the response status code is {status!r}, not an integer",
                index=index,
                keys=["response", "status"],
            )
        headers = _headers(response.get("headers"))
        raw: str | bytes | None = None
        if "parsed_body" in response:
            kind: BodyKind = "json"
            body: Any = response["parsed_body"]
            done = False
        else:
            holder = self._mapping(response.get("body"), index, ["response", "body"])
            if "string" not in holder:
                self.fail(
                    "the response body has no 'string'", index=index, keys=["response", "body"]
                )
            keys: list[str | int] = ["response", "body", "string"]
            raw = self._decoded(holder["string"], headers, index, keys)
            try:
                content_type = headers.get("content-type", "")
                if (
                    not 200 <= status < 300
                    and isinstance(raw, str)
                    and raw.lstrip()[:1] in ("{", "[")
                ):
                    content_type = "application/json"
                kind, body, done = _classify(raw, content_type)
            except JsonTextError as exc:
                self.fail(f"the response body is unreadable: {exc.problem}", index=index, keys=keys)
        return Interaction(
            index=index,
            method=method.upper(),
            uri=uri,
            request_body=self._request_body(request, index),
            status=status,
            response_headers=headers,
            body_kind=kind,
            body=body,
            stream_done=done,
            raw_body=raw,
        )

    def _request_body(self, request: dict[str, Any], index: int) -> Any:
        if "parsed_body" in request:
            return request["parsed_body"]
        raw = self._decoded(
            request.get("body"), _headers(request.get("headers")), index, ["request"]
        )
        if isinstance(raw, bytes):
            return raw
        if raw is None or not raw.strip():
            return None
        try:
            value = _json_or_not(raw)
        except JsonTextError as exc:
            self.fail(
                f"the request body is unreadable: {exc.problem}", index=index, keys=["request"]
            )
        return raw if value is _NOT_JSON else value

    def _decoded(
        self, raw: object, headers: Mapping[str, str], index: int, keys: list[str | int]
    ) -> str | bytes | None:
        if raw is not None and not isinstance(raw, str | bytes):
            self.fail(f"the body is {_a(raw)}, not text or bytes", index=index, keys=keys)
        if raw is not None:
            try:
                check_size(raw)
            except BodyTooLarge as exc:
                self.fail(str(exc), index=index, keys=keys)
        if not isinstance(raw, bytes):
            return raw
        encodings = [e.strip().lower() for e in headers.get("content-encoding", "").split(",")]
        for encoding in reversed([e for e in encodings if e and e != "identity"]):
            try:
                raw = decompress(raw, encoding)
            except BodyTooLarge as exc:
                self.fail(str(exc), index=index, keys=keys)
            except ValueError as exc:
                self.fail(
                    f"the body says content-encoding {encoding} but does not decode ({exc})",
                    index=index,
                    keys=keys,
                )
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw


def _a(value: object) -> str:
    """``value``'s type with an article: ``an int``, ``a list``."""
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _headers(raw: object) -> dict[str, str]:
    out: dict[str, str] = {}
    if not isinstance(raw, dict):
        return out
    for name, value in raw.items():
        values = value if isinstance(value, list) else [value]
        text = ", ".join(str(v) for v in values if v is not None)
        key = str(name).lower()
        out[key] = f"{out[key]}, {text}" if key in out else text
    return out


def _classify(raw: str | bytes | None, content_type: str) -> tuple[BodyKind, Any, bool]:
    if raw is None:
        return "text", "", False
    if isinstance(raw, bytes):
        return "bytes", raw, False
    content_type = content_type.lower()
    if "text/event-stream" in content_type or (
        not content_type and raw.lstrip().startswith("data:")
    ):
        payloads, done = parse_sse(raw)
        return "sse", payloads, done
    value = _json_or_not(raw)
    return ("text", raw, False) if value is _NOT_JSON else ("json", value, False)


Screen = Callable[[str, Callable[[], yaml.Node | None] | None], None]
"""Called with a cassette's text, and with a function giving its YAML node tree (None
for a JSON cassette), once the text has been read and composed and before anything is
built from it; what it raises propagates."""


def load_foreign_cassette(path: str | Path, *, screen: Screen | None = None) -> list[Interaction]:
    """Every interaction of a vcrpy cassette (stock YAML or JSON, or pydantic-ai's
    ``parsed_body`` YAML), decoded as described in the module docstring.

    ``screen`` sees the text and its node tree before the interactions are built (the
    ``replay`` command scans it for secrets there, without composing it again, and the
    stream events the scan decodes are not decoded again); it is not called when the
    file cannot be read or its YAML does not compose."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CassetteError(
            f"{path}: no such cassette; check the path", code="CASSETTE_MISSING", path=str(path)
        ) from None
    except OSError as exc:
        raise CassetteError(
            f"{path}: cannot be read ({exc})", code="CASSETTE_CORRUPT", path=str(path)
        ) from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        reader = _Reader(path, "")
        reader.fail(f"the file is not UTF-8 text (byte {exc.start})", line=line)
    if screen is None:
        return _Reader(path, text).interactions()
    with handing():  # the events the screen's secret scan decodes are not decoded again
        return _Reader(path, text, screen).interactions()

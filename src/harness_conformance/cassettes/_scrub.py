"""The cassette scrubber: credential headers dropped, declared secrets replaced.

`Scrubber` removes the `SECRET_HEADERS`, replaces the values of the `SECRET_QUERY_PARAMS`
of a request URL (Gemini's ``?key=``), and replaces every declared secret (the ones it
is given and the values of the `SECRET_ENV_VARS`) with `REDACTED` in header values, the
URI and bodies, in each spelling `Redactor` knows (percent-encoded, JSON-escaped,
base64). A streamed response body gets one more pass: a secret cut across the deltas
of its events is replaced piece by piece (`redact_split`), so the reassembled reply
holds the placeholder and the stream keeps its events. A body that came out of a scrub
unchanged is remembered as a digest (`CLEAN_TEXTS`), so the same body under the same
secrets is not searched again when the next test loads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from vcr.request import Request  # type: ignore[import-untyped]

from ..redaction import REDACTED, Redactor, Secret, declared_secrets, redact_split
from ._clean_texts import CLEAN_TEXTS
from ._decompress import BodyTooLarge, content_encodings, decode_layers
from ._format import decoded_response
from ._hidden_secrets import scrub_userinfo
from ._sse import sse_items, sse_text

__all__ = ["SECRET_HEADERS", "SECRET_QUERY_PARAMS", "Scrubber", "scrub_query", "scrub_stream"]

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "api-key",
        "x-api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
        "openai-organization",
        "openai-project",
    }
)
"""Headers dropped from every recorded request and response (names lower-case)."""

SECRET_QUERY_PARAMS = frozenset({"key", "api_key", "api-key", "apikey", "access_token"})
"""URL query parameters whose values are replaced in every recorded request (names
compared without regard to case)."""

_QUERY_PARAM = re.compile(r"(?<=[?&])([^=&#]+)=([^&#]*)")


def scrub_query(uri: str) -> str:
    """``uri`` with the value of every `SECRET_QUERY_PARAMS` parameter replaced by
    `REDACTED`, as declared secrets are; the rest of the URL is kept byte for byte."""
    if "?" not in uri:
        return uri

    def replace(match: re.Match[str]) -> str:
        name = match[1]
        return f"{name}={REDACTED}" if name.lower() in SECRET_QUERY_PARAMS else match[0]

    head, mark, rest = uri.partition("?")
    return head + mark + _QUERY_PARAM.sub(replace, "?" + rest)[1:]


def scrub_stream(text: str, redactor: Redactor) -> str:
    """An event-stream text with every secret split across its ``data:`` events replaced;
    a text that is not an event stream, or a redactor without secrets, leaves it as it
    is (the same object)."""
    if not redactor.secrets:
        return text
    parsed = sse_items(text) if "data:" in text else None
    if parsed is None:
        return text
    items, json_style, end = parsed
    holders = [item for item in items if "data" in item]
    data, changed = redact_split([item["data"] for item in holders], redactor)
    if not changed:
        return text
    for item, value in zip(holders, data, strict=True):
        item["data"] = value
    return sse_text(items, json_style=json_style, end=end)


def _stream_body(body: Any, redactor: Redactor) -> Any:
    if isinstance(body, str):
        return scrub_stream(body, redactor)
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return body
        scrubbed = scrub_stream(text, redactor)
        return body if scrubbed is text else scrubbed.encode("utf-8")
    return body


def _body(value: Any, redactor: Redactor) -> Any:
    """A request body with every secret replaced; a text this scrub left as it was
    before (`CLEAN_TEXTS`) is not searched again."""
    if not redactor.secrets or not isinstance(value, str | bytes):
        return redactor.value(value)
    digest = CLEAN_TEXTS.digest("request body", value, redactor)
    if CLEAN_TEXTS.known(digest):
        return value
    scrubbed = redactor.value(value)
    if scrubbed == value:
        CLEAN_TEXTS.add(digest)
    return scrubbed


class Scrubber:
    """Removes credentials from requests, responses and whole cassettes.

    ``secrets`` are declared keys to replace (a `Secret` or text, kept as a `Secret`);
    the `SECRET_ENV_VARS` are read each time the scrubber runs, so a key set after the
    scrubber was made is still caught.
    """

    def __init__(self, secrets: Iterable[str | Secret] = ()) -> None:
        self._given = tuple(Secret(value) for value in secrets)
        self._redactor: Redactor | None = None

    def declare(self, value: str | Secret) -> None:
        """Scrub ``value`` too from now on (a credential seen in a live request)."""
        secret = Secret(value)
        if secret not in self._given:
            self._given = (*self._given, secret)

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The declared secrets scrubbed right now."""
        return declared_secrets(self._given)

    def redactor(self) -> Redactor:
        """A `Redactor` for the secrets scrubbed right now (the one made before, while
        they are the same)."""
        secrets = self.secrets
        if self._redactor is None or self._redactor.secrets != secrets:
            self._redactor = Redactor(secrets)
        return self._redactor

    def _headers(self, headers: Mapping[str, Any], redactor: Redactor) -> dict[str, Any]:
        return {
            name: redactor.value(value)
            for name, value in headers.items()
            if str(name).lower() not in SECRET_HEADERS
        }

    def scrub_request(self, request: Request) -> Request:
        """A scrubbed copy of a vcrpy request (a ``before_record_request`` hook).

        A body sent with ``content-encoding`` (gzip, deflate, brotli) is decoded first,
        so the values inside it can be replaced, and kept decoded.
        """
        redactor = self.redactor()
        body = request.body
        if hasattr(body, "read"):
            body = body.read()
        elif body is not None and not isinstance(body, bytes | str):
            body = b"".join(part if isinstance(part, bytes) else part.encode() for part in body)
        headers = self._headers(request.headers, redactor)
        encodings = content_encodings(request.headers)
        if encodings and isinstance(body, bytes):
            try:
                body = decode_layers(body, encodings)
            except BodyTooLarge:
                raise
            except ValueError:
                pass  # a layer that does not decode is kept, and scanned as it is
            else:
                dropped = ("content-encoding", "content-length")
                headers = {k: v for k, v in headers.items() if str(k).lower() not in dropped}
        return Request(
            request.method,
            scrub_userinfo(scrub_query(redactor.text(request.uri)), REDACTED),
            _body(body, redactor),
            headers,
        )

    def scrub_response(self, response: Mapping[str, Any]) -> dict[str, Any]:
        """A scrubbed copy of a vcrpy response (a ``before_record_response`` hook).

        A compressed body is decoded first, so the values inside it can be replaced. A
        body text this scrub left as it was before (`CLEAN_TEXTS`) is not searched again.
        """
        redactor = self.redactor()
        decoded = decoded_response(response)
        given = decoded.get("body")
        text = given.get("string") if isinstance(given, Mapping) else None
        digest = None
        if redactor.secrets and isinstance(text, str | bytes):
            digest = CLEAN_TEXTS.digest("response body", text, redactor)
        clean = digest is not None and CLEAN_TEXTS.known(digest)
        if clean and isinstance(given, Mapping):
            decoded["body"] = {**given, "string": None}
        scrubbed: dict[str, Any] = redactor.value(decoded)
        if isinstance(decoded.get("headers"), Mapping):
            scrubbed["headers"] = self._headers(decoded["headers"], redactor)
        body = scrubbed.get("body")
        if clean and isinstance(body, Mapping):
            scrubbed["body"] = {**body, "string": text}
        elif isinstance(body, Mapping) and "string" in body:
            result = _stream_body(body["string"], redactor)
            scrubbed["body"] = {**body, "string": result}
            if digest is not None and result == text:
                CLEAN_TEXTS.add(digest)
        return scrubbed

    def scrub_cassette(self, cassette_dict: Mapping[str, Any]) -> dict[str, Any]:
        """A scrubbed copy of what vcrpy hands a persister (requests, responses, metadata)."""
        scrubbed = dict(cassette_dict)
        scrubbed["requests"] = [self.scrub_request(r) for r in cassette_dict["requests"]]
        scrubbed["responses"] = [self.scrub_response(r) for r in cassette_dict["responses"]]
        if "metadata" in cassette_dict:
            scrubbed["metadata"] = self.redactor().value(cassette_dict["metadata"])
        return scrubbed

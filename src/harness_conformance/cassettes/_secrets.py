"""Keeping credentials out of cassettes: a scrubber and a scanner.

`Scrubber` removes the credential headers (`SECRET_HEADERS`) and replaces every
occurrence of the live secret values, the ones it is given and the ones in the
`SECRET_ENV_VARS` environment variables, with `REDACTED`: in header values, in the URI
(query string included, percent-encoded forms too) and in bodies (JSON-escaped forms
too). `find_secrets` then reads the text about to be written and reports anything that
still looks like a credential; `refuse_secrets` turns findings into a
``CASSETTE_SECRET`` error that says what and where, never the value itself.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from io import BytesIO
from typing import Any
from urllib.parse import quote, quote_plus

import yaml
from vcr.request import Request  # type: ignore[import-untyped]

from ..errors import CassetteError
from ._format import decoded_response

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SECRET_ENV_VARS",
    "SECRET_HEADERS",
    "Scrubber",
    "SecretFinding",
    "describe_findings",
    "find_secrets",
    "live_secrets",
    "refuse_secrets",
]

REDACTED = "<redacted>"
"""What every live secret value is replaced with."""

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "api-key",
        "x-api-key",
        "cookie",
        "set-cookie",
        "openai-organization",
        "openai-project",
    }
)
"""Headers dropped from every recorded request and response (names lower-case)."""

SECRET_ENV_VARS = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")
"""Environment variables whose values are scrubbed as live secrets when set."""

MIN_SECRET_LENGTH = 8
"""Shorter values are not scrubbed: replacing them would rewrite ordinary text."""


def live_secrets(secrets: Iterable[str] = ()) -> tuple[str, ...]:
    """The values to scrub: ``secrets`` plus the set `SECRET_ENV_VARS`, longest first."""
    values = {value for value in secrets if isinstance(value, str)}
    values.update(os.environ.get(name, "") for name in SECRET_ENV_VARS)
    kept = (value for value in values if len(value) >= MIN_SECRET_LENGTH)
    return tuple(sorted(kept, key=lambda value: (-len(value), value)))


def _spellings(secret: str) -> list[str]:
    """The forms a value takes in URIs and JSON text, each with its replacement."""
    forms = {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1]}
    return sorted(forms, key=lambda form: (-len(form), form))


def _replace(value: Any, forms: list[str]) -> Any:
    """A copy of ``value`` with every form replaced in strings, bytes and containers."""
    if isinstance(value, str):
        for form in forms:
            value = value.replace(form, REDACTED)
        return value
    if isinstance(value, bytes | bytearray):
        data = bytes(value)
        for form in forms:
            data = data.replace(form.encode("utf-8"), REDACTED.encode("utf-8"))
        return data
    if isinstance(value, BytesIO):
        return BytesIO(_replace(value.getvalue(), forms))
    if isinstance(value, Mapping):
        return {_replace(key, forms): _replace(item, forms) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_replace(item, forms) for item in value)
    return value


class Scrubber:
    """Removes credentials from requests, responses and whole cassettes.

    ``secrets`` are live values to replace; the `SECRET_ENV_VARS` are read each time
    the scrubber runs, so a key set after the scrubber was made is still caught.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._given = tuple(secrets)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The live values scrubbed right now."""
        return live_secrets(self._given)

    def _forms(self) -> list[str]:
        return sorted(
            {form for secret in self.secrets for form in _spellings(secret)},
            key=lambda form: (-len(form), form),
        )

    def _headers(self, headers: Mapping[str, Any], forms: list[str]) -> dict[str, Any]:
        return {
            name: _replace(value, forms)
            for name, value in headers.items()
            if str(name).lower() not in SECRET_HEADERS
        }

    def scrub_request(self, request: Request) -> Request:
        """A scrubbed copy of a vcrpy request (a ``before_record_request`` hook)."""
        forms = self._forms()
        body = request.body
        if hasattr(body, "read"):
            body = body.read()
        elif body is not None and not isinstance(body, bytes | str):
            body = b"".join(part if isinstance(part, bytes) else part.encode() for part in body)
        return Request(
            request.method,
            _replace(request.uri, forms),
            _replace(body, forms),
            self._headers(request.headers, forms),
        )

    def scrub_response(self, response: Mapping[str, Any]) -> dict[str, Any]:
        """A scrubbed copy of a vcrpy response (a ``before_record_response`` hook).

        A compressed body is decoded first, so the values inside it can be replaced.
        """
        forms = self._forms()
        decoded = decoded_response(response)
        scrubbed: dict[str, Any] = _replace(decoded, forms)
        if isinstance(decoded.get("headers"), Mapping):
            scrubbed["headers"] = self._headers(decoded["headers"], forms)
        return scrubbed

    def scrub_cassette(self, cassette_dict: Mapping[str, Any]) -> dict[str, Any]:
        """A scrubbed copy of what vcrpy hands a persister (requests, responses, metadata)."""
        scrubbed = dict(cassette_dict)
        scrubbed["requests"] = [self.scrub_request(r) for r in cassette_dict["requests"]]
        scrubbed["responses"] = [self.scrub_response(r) for r in cassette_dict["responses"]]
        if "metadata" in cassette_dict:
            scrubbed["metadata"] = _replace(cassette_dict["metadata"], self._forms())
        return scrubbed


# -- the scanner -------------------------------------------------------------------------

_PLACEHOLDER_WORDS = ("redacted", "xxxx", "placeholder", "dummy", "fake", "example", "your")
_CREDENTIAL_NAME = re.compile(r"(?i)key|secret|token|passw|credential|auth|session|cookie")
_CREDENTIAL_BEFORE = re.compile(
    r"(?i)(?:key|secret|token|passw\w*|credential\w*|auth\w*|session\w*|cookie)[\w-]*"
    r"""["']?\s*[:=]\s*["']?\s*(?:bearer\s+)?$"""
)


def _is_placeholder(token: str) -> bool:
    lowered = token.lower()
    return len(set(lowered)) < 5 or any(word in lowered for word in _PLACEHOLDER_WORDS)


def _looks_random(token: str) -> bool:
    return (
        any(c.isdigit() for c in token)
        and any(c.isalpha() for c in token)
        and not _is_placeholder(token)
    )


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    accept: Callable[[str], bool]
    needs_context: bool = False


# Each key pattern starts with its literal prefix, so the regex engine can jump to it;
# the look-behind after the prefix keeps it from matching inside a longer word.
_PATTERNS = (
    _Pattern(
        "an OpenAI-style API key (sk-...)",
        re.compile(r"sk-(?<![\w-]sk-)[A-Za-z0-9_-]{20,}"),
        lambda token: not _is_placeholder(token[3:]),
    ),
    _Pattern(
        "a Groq API key (gsk_...)",
        re.compile(r"gsk_(?<![\w-]gsk_)[A-Za-z0-9]{20,}"),
        lambda token: not _is_placeholder(token[4:]),
    ),
    _Pattern(
        "an xAI API key (xai-...)",
        re.compile(r"xai-(?<![\w-]xai-)[A-Za-z0-9]{20,}"),
        lambda token: not _is_placeholder(token[4:]),
    ),
    _Pattern(
        "a Google API key (AIza...)",
        re.compile(r"AIza(?<![\w-]AIza)[0-9A-Za-z_-]{35}"),
        lambda token: not _is_placeholder(token[4:]),
    ),
    _Pattern(
        "a bearer token (Bearer ...)",
        re.compile(r"Bearer(?<!\wBearer)\s+([A-Za-z0-9._~+/=-]{16,})"),
        lambda token: _looks_random(token.split()[-1]),
    ),
    _Pattern(
        "a long hex key",
        re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{32,}(?![0-9A-Za-z])"),
        _looks_random,
        needs_context=True,
    ),
    _Pattern(
        "a long base64 key",
        re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{40,}={0,2}"),
        _looks_random,
        needs_context=True,
    ),
)


@dataclass(frozen=True)
class SecretFinding:
    """A credential-looking token in cassette text; the token itself is not kept."""

    kind: str
    """What it looks like, e.g. ``an OpenAI-style API key (sk-...)``."""
    length: int
    """How many characters it has."""
    line: int
    """1-based line of its first character."""
    column: int
    """1-based column of its first character."""
    field: str
    """Where it sits in the YAML document, e.g. ``interactions[0].request.uri``; empty
    when the text is not YAML."""

    def describe(self) -> str:
        """``kind, length, interaction, side, field, line and column`` in one phrase."""
        where = f"line {self.line}, column {self.column}"
        match = re.match(r"interactions\[(\d+)\]\.(request|response)\.?(.*)", self.field)
        if match:
            field = f", field {match[3]}" if match[3] else ""
            where = f"interaction {match[1]}, {match[2]}{field} ({where})"
        elif self.field:
            where = f"{self.field} ({where})"
        return f"{self.kind}, {self.length} characters, at {where}"


def _field_name(key: Any) -> str:
    text = str(key)
    return f".{text}" if re.fullmatch(r"[\w-]+", text) else f"[{text!r}]"


def _field_at(root: yaml.Node | None, offset: int) -> str:
    """The dotted path of the YAML node holding the character at ``offset``."""
    parts: list[str] = []
    node = root
    while isinstance(node, yaml.MappingNode | yaml.SequenceNode):
        children: list[tuple[str, yaml.Node, bool]] = []
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                children.append((_field_name(key.value), key, False))
                children.append((_field_name(key.value), value, True))
        else:
            children = [(f"[{index}]", item, True) for index, item in enumerate(node.value)]
        node = None
        for name, child, descend in children:
            if child.start_mark.index <= offset < child.end_mark.index:
                parts.append(name)
                node = child if descend else None
                break
    return "".join(parts).lstrip(".")


def _credential_field(field: str) -> bool:
    """Whether one of the last two names in a field path sounds like a credential."""
    names = [name for name in re.split(r"[.\[\]]+", field) if name and not name.isdigit()]
    return any(_CREDENTIAL_NAME.search(name) for name in names[-2:])


def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None


def find_secrets(text: str, secrets: Iterable[str] = ()) -> list[SecretFinding]:
    """Everything in ``text`` that looks like a credential, in text order.

    Key-shaped tokens (``sk-``, ``gsk_``, ``xai-``, ``AIza``, a non-placeholder
    ``Bearer`` token) count anywhere. Long hex (32+) and base64 (40+) runs count only
    next to a credential-like name (``api_key=...``, a ``token`` field, an ``x-api-key``
    header), so ids, hashes and binary bodies do not. The live values in ``secrets``
    and in `SECRET_ENV_VARS` count wherever they appear. A token that lies inside one
    already reported (the key of a ``Bearer sk-...`` header) is not reported again.
    """
    hits: dict[int, tuple[str, int, bool]] = {}
    for secret in live_secrets(secrets):
        start = text.find(secret)
        while start != -1:
            hits.setdefault(start, ("a live API key value", len(secret), False))
            start = text.find(secret, start + 1)
    for pattern in _PATTERNS:
        for match in pattern.regex.finditer(text):
            if pattern.accept(match[0]):
                hits.setdefault(match.start(), (pattern.kind, len(match[0]), pattern.needs_context))
    root: yaml.Node | None = None
    composed = False
    findings: list[SecretFinding] = []
    covered = 0
    for start in sorted(hits):
        kind, length, needs_context = hits[start]
        if start < covered:
            continue
        line_start = text.rfind("\n", 0, start) + 1
        named_before = _CREDENTIAL_BEFORE.search(text[max(line_start, start - 64) : start])
        if not composed:
            root, composed = _compose(text), True
        field = _field_at(root, start)
        if needs_context and not (named_before or _credential_field(field)):
            continue
        line = text.count("\n", 0, start) + 1
        findings.append(SecretFinding(kind, length, line, start - line_start + 1, field))
        covered = start + length
    return findings


def describe_findings(findings: Sequence[SecretFinding], most: int = 5) -> str:
    """The first ``most`` findings, each with its kind and place, and how many more."""
    shown = "; ".join(finding.describe() for finding in findings[:most])
    more = f"; and {len(findings) - most} more" if len(findings) > most else ""
    return shown + more


def refuse_secrets(text: str, *, path: str | None, secrets: Iterable[str] = ()) -> None:
    """Raise ``CassetteError(code="CASSETTE_SECRET")`` if `find_secrets` finds anything."""
    findings = find_secrets(text, secrets)
    if not findings:
        return
    raise CassetteError(
        f"refusing to write cassette {path or '<text>'}: it still holds "
        f"{len(findings)} secret-looking token(s): {describe_findings(findings)}. "
        "Nothing was written. "
        f"Pass the live key in secrets=[...] so it is replaced by {REDACTED}, or drop "
        "the value with a before_record_request/before_record_response hook.",
        code="CASSETTE_SECRET",
        path=path,
    )

"""Keeping credentials out of cassettes: the scrubber's constants and the scanner.

The `Scrubber` (in `harness_conformance.cassettes._scrub`) removes the credential
headers and every declared secret. `find_secrets` then reads the text about to be
written and reports anything that still looks like a credential: a key-shaped token,
a declared secret in any spelling, or either of them cut across the deltas of a
streamed reply. `refuse_secrets` turns findings into a ``CASSETTE_SECRET`` error that
says what and where, never the value itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from ..errors import CassetteError
from ..redaction import (
    MIN_SECRET_LENGTH,
    REDACTED,
    SECRET_ENV_VARS,
    Redactor,
    Secret,
    crossing,
    declared_secrets,
    joined_texts,
    text_streams,
)
from ._binary_bodies import binary_bodies
from ._hidden_secrets import hidden_hits
from ._json_path import json_path_at
from ._key_patterns import KEYED, PATTERNS, key_matches
from ._scrub import SECRET_HEADERS, SECRET_QUERY_PARAMS, Scrubber
from ._stream_bodies import json_bodies, stream_bodies

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SECRET_ENV_VARS",
    "SECRET_HEADERS",
    "SECRET_QUERY_PARAMS",
    "Scrubber",
    "Secret",
    "SecretFinding",
    "describe_findings",
    "find_secrets",
    "live_secrets",
    "refuse_secrets",
]


def live_secrets(secrets: Iterable[str | Secret] = ()) -> tuple[Secret, ...]:
    """The declared secrets: ``secrets`` plus the set `SECRET_ENV_VARS`, longest first."""
    return declared_secrets(secrets)


# -- the scanner -------------------------------------------------------------------------

_CREDENTIAL_NAME = re.compile(r"(?i)key|secret|token|passw|credential|auth|session|cookie")
_CREDENTIAL_BEFORE = re.compile(
    r"(?i)(?:key|secret|token|passw\w*|credential\w*|auth\w*|session\w*|cookie)[\w-]*"
    r"""["']?\s*[:=]\s*["']?\s*(?:bearer\s+)?$"""
)


_ID_NAME = re.compile(r"(?:^|[-_])(?:id|ID|Id)$|[a-z]Id$")
"""A name that says its value identifies something: ``x-session-id``, ``request_id``,
``sessionId``."""
_UUID_IDENTIFIER = re.compile(
    r"(?:[A-Za-z]+[-_])*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
"""A UUID, after word prefixes such as ``session-``: the shape of an identifier."""


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


_WORD = re.compile(r"[\w-]+")


def _field_name(key: Any) -> str:
    text = str(key)
    return f".{text}" if _WORD.fullmatch(text) else f"[{text!r}]"


def _holds(node: yaml.Node, offset: int) -> bool:
    return bool(node.start_mark.index <= offset < node.end_mark.index)


def _field_at(root: yaml.Node | None, offset: int, text: str) -> str:
    """The dotted path of the YAML node holding the character at ``offset``, followed
    into a format-2 JSON body (`json_path_at`)."""
    parts: list[str] = []
    node = root
    while isinstance(node, yaml.MappingNode | yaml.SequenceNode):
        parent, node = node, None
        if isinstance(parent, yaml.MappingNode):
            for key, value in parent.value:
                inside = _holds(value, offset)
                if inside or _holds(key, offset):
                    parts.append(_field_name(key.value))
                    node = value if inside else None
                    break
        else:
            for index, item in enumerate(parent.value):
                if _holds(item, offset):
                    parts.append(f"[{index}]")
                    node = item
                    break
    if parts[-1:] == [".json"] and isinstance(node, yaml.ScalarNode) and node.style == "|":
        parts.append(_inside_block(node, offset, text))
    return "".join(parts).lstrip(".")


def _inside_block(node: yaml.ScalarNode, offset: int, text: str) -> str:
    """The JSON path, inside the literal block ``node``, of the file character at
    ``offset``."""
    first = node.start_mark.line + 1  # the block's text starts on the line after "|"
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    shown_start = text.find("\n", node.start_mark.index) + 1
    shown = text[shown_start : text.find("\n", shown_start)]
    indent = len(shown) - len(shown.lstrip(" "))
    value: str = node.value
    rows = value.split("\n")[: max(0, line - first)]
    inner = sum(len(row) + 1 for row in rows) + max(0, offset - line_start - indent)
    return json_path_at(value, inner, _field_name)


def _credential_names(field: str) -> list[str]:
    """The last two names in a field path that sound like a credential."""
    names = [name for name in re.split(r"[.\[\]]+", field) if name and not name.isdigit()]
    return [name for name in names[-2:] if _CREDENTIAL_NAME.search(name)]


def _credential_field(field: str) -> bool:
    """Whether one of the last two names in a field path sounds like a credential."""
    return bool(_credential_names(field))


def _an_identifier(token: str, before: re.Match[str] | None, field: str) -> bool:
    """Whether a long run next to a credential-like name is an identifier instead: a
    UUID (after word prefixes such as ``session-``) under a name that ends in ``id``,
    such as the reference's ``x-deepseek-harness-session-id`` header. Every credential
    name around it must be such an id name, so a UUID under ``api-key`` or
    ``session-token`` still counts."""
    if not _UUID_IDENTIFIER.fullmatch(token):
        return False
    names = _credential_names(field)
    if before is not None:
        names.append(re.split(r"""["']?\s*[:=]""", before.group(0))[0])
    return bool(names) and all(_ID_NAME.search(name) for name in names)


def _compose(text: str) -> yaml.Node | None:
    from ..parsing import compose_yaml

    try:
        return compose_yaml(text)
    except yaml.YAMLError:
        return None


def _worth_a_look(joined: str, redactor: Redactor) -> bool:
    """Whether a reassembled stream text holds a declared secret or a key-shaped token
    anywhere: only then are its pieces built to see whether one lies across them."""
    return bool(redactor.spans(joined)) or any(pattern.regex.search(joined) for pattern in KEYED)


def _split_findings(root: yaml.Node | None, text: str, redactor: Redactor) -> list[SecretFinding]:
    """Declared secrets and key-shaped tokens cut across the events of a stream."""
    findings: list[SecretFinding] = []
    for where, data, places, numbers in stream_bodies(root, text):
        if not any(_worth_a_look(joined, redactor) for joined in joined_texts(data)):
            continue
        for pieces in text_streams(data):
            joined = "".join(piece.text for piece in pieces)
            hits = [("a live API key value", span) for span in redactor.spans(joined)]
            hits += [
                (pattern.kind, match.span())
                for pattern in PATTERNS
                if not pattern.needs_context
                for match in pattern.regex.finditer(joined)
                if pattern.accept(match[0])
            ]
            covered = 0
            for kind, (start, end) in sorted(hits, key=lambda hit: hit[1][0]):
                if start < covered or not crossing(pieces, [(start, end)]):
                    continue
                covered = end
                first = next(piece for piece in reversed(pieces) if piece.start <= start)
                count = sum(1 for p in pieces if p.start < end and start < p.start + len(p.text))
                line, column = places[first.index]
                event = numbers[first.index]
                field = f"{where.format(event)}.{first.path}" if "{}" in where else where
                findings.append(
                    SecretFinding(
                        f"{kind} split across {count} stream events",
                        end - start,
                        line + 1,
                        column + 1,
                        field,
                    )
                )
    return findings


def _decoded_hits(
    value: Any, text: str, place: tuple[int, int], field: str, what: str
) -> list[SecretFinding]:
    """Key-shaped tokens of the decoded ``value`` that the file does not spell out: it
    writes them with JSON escapes (``\\u0073k-...``), which the text scan cannot see."""
    try:
        decoded = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        return []
    found: list[SecretFinding] = []
    for pattern in PATTERNS:
        if pattern.needs_context:
            continue
        for match in pattern.regex.finditer(decoded):
            token = match[0]
            if pattern.accept(token) and token not in text:
                kind = f"{pattern.kind} written with escapes in {what}"
                found.append(SecretFinding(kind, len(token), place[0] + 1, place[1] + 1, field))
    return found


def _escaped_findings(root: yaml.Node | None, text: str) -> list[SecretFinding]:
    """Key-shaped tokens spelled with escapes inside a stream event, a JSON body or a
    double-quoted YAML string, found in the decoded value and reported where it starts."""
    findings: list[SecretFinding] = []
    for where, data, places, numbers in stream_bodies(root, text):
        for value, place, number in zip(data, places, numbers, strict=True):
            field = where.format(number) if "{}" in where else where
            findings += _decoded_hits(value, text, place, field, "a stream event")
    for field, value, place in json_bodies(root):
        findings += _decoded_hits(value, text, place, field, "a JSON body")
    stack = [root] if root is not None else []
    while stack:  # double-quoted YAML scalars spell characters with escapes too
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            stack.extend(child for pair in node.value for child in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif (
            isinstance(node, yaml.ScalarNode)
            and node.style == '"'
            and "\\" in text[node.start_mark.index : node.end_mark.index]
        ):
            place = (node.start_mark.line, node.start_mark.column)
            field = _field_at(root, node.start_mark.index, text)
            findings += _decoded_hits(node.value, text, place, field, "a quoted YAML string")
    return findings


def _binary_findings(
    root: yaml.Node | None, secrets: Iterable[str | Secret]
) -> list[SecretFinding]:
    """What `find_secrets` finds inside the decoded base64 bodies (`binary_bodies`),
    reported where each body starts."""
    found: list[SecretFinding] = []
    for field, decoded, how, (line, column) in binary_bodies(root):
        for inner in find_secrets(decoded, secrets, tree=lambda: None):
            kind = f"{inner.kind} inside {how}"
            found.append(SecretFinding(kind, inner.length, line + 1, column + 1, field))
    return found


def find_secrets(
    text: str,
    secrets: Iterable[str | Secret] = (),
    *,
    tree: Callable[[], yaml.Node | None] | None = None,
) -> list[SecretFinding]:
    """Everything in ``text`` that looks like a credential, in text order.

    Key-shaped tokens (``sk-``, ``sk-ant-``, ``gsk_``, ``xai-``, ``AIza``, ``hf_``,
    GitHub, AWS and Slack tokens, a non-placeholder ``Bearer`` token) count anywhere.
    Long hex (32+) and base64 (40+) runs count only next to a credential-like name
    (``api_key=...``, a ``token`` field, an ``x-api-key`` header), so ids, hashes and
    binary bodies do not. The declared secrets (``secrets`` and the values of
    `SECRET_ENV_VARS`) count wherever they appear, in any spelling `Redactor` knows. In
    a cassette's streamed responses, a declared secret or a key-shaped token cut across
    the deltas of several events is found in the reassembled text and reported at the
    event where it starts. A key-shaped token a stream event or a JSON body spells with
    JSON escapes (``\\u0073k-...``) is found in the decoded value and reported where the
    event or the body starts. A secret with zero-width or other invisible characters
    between its characters, and a password in a URL's userinfo, count too
    (`harness_conformance.cassettes._hidden_secrets`). A base64 body (``binary:``, or
    vcrpy's ``!!binary``) is decoded, through its gzip, deflate, brotli or zstd layers, and
    what it holds is reported where the body starts
    (`harness_conformance.cassettes._binary_bodies`). A token that lies inside one
    already reported (the key of a ``Bearer sk-...`` header) is not reported again.

    ``tree`` gives the YAML node tree of ``text`` when the caller has composed it
    already (None when it is not YAML); without it the text is composed here, when
    a finding needs a field or a stream.
    """
    compose = tree if tree is not None else lambda: _compose(text)
    redactor = Redactor(live_secrets(secrets))
    hits: dict[int, tuple[str, int, bool]] = {}
    for start, end in redactor.spans(text):
        hits.setdefault(start, ("a live API key value", end - start, False))
    for pattern, match in key_matches(text):
        if pattern.accept(match[0]):
            hits.setdefault(match.start(), (pattern.kind, len(match[0]), pattern.needs_context))
    for start, kind, length in hidden_hits(text, redactor):
        hits.setdefault(start, (kind, length, False))
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
            root, composed = compose(), True
        field = _field_at(root, start, text)
        if needs_context and not (named_before or _credential_field(field)):
            continue
        if needs_context and _an_identifier(text[start : start + length], named_before, field):
            continue
        line = text.count("\n", 0, start) + 1
        findings.append(SecretFinding(kind, length, line, start - line_start + 1, field))
        covered = start + length
    if "data" in text:
        if not composed:
            root, composed = compose(), True
        findings += _split_findings(root, text, redactor)
    if "\\u00" in text or "\\x" in text:  # an escape of an ASCII character
        if not composed:
            root, composed = compose(), True
        findings += _escaped_findings(root, text)
    if "binary" in text:
        if not composed:
            root, composed = compose(), True
        findings += _binary_findings(root, secrets)
    findings.sort(key=lambda finding: (finding.line, finding.column))
    return findings


def describe_findings(findings: Sequence[SecretFinding], most: int = 5) -> str:
    """The first ``most`` findings, each with its kind and place, and how many more."""
    shown = "; ".join(finding.describe() for finding in findings[:most])
    more = f"; and {len(findings) - most} more" if len(findings) > most else ""
    return shown + more


def refuse_secrets(text: str, *, path: str | None, secrets: Iterable[str | Secret] = ()) -> None:
    """Raise ``CassetteError(code="CASSETTE_SECRET")`` if `find_secrets` finds anything."""
    findings = find_secrets(text, secrets)
    if not findings:
        return
    raise CassetteError(
        f"refusing to write cassette {path or '<text>'}: it still holds "
        f"{len(findings)} secret-looking token(s): {describe_findings(findings)}. "
        "Nothing was written. "
        f"Pass the live key in secrets=[...] of make_vcr or configure_vcr so it is "
        f"replaced by {REDACTED}, or drop "
        "the value with a before_record_request/before_record_response hook.",
        code="CASSETTE_SECRET",
        path=path,
    )

"""The vector entries this library knowingly disagrees with, and why.

Schema refusals: raw JSON Schemas the reference implementation refuses and
`from_json_schema` imports on purpose; each reason cites the section of the RFC that
records the decision. Invariant cases: checks the reference makes that belong to its
own companions rather than to the invariant rules (see `reference_only_check`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._invariants import InvariantCase
    from ._refusals import SchemaRefusal
    from ._schema import SchemaCase, SchemaVector

__all__ = [
    "ACCEPTED_ON_PURPOSE",
    "REFERENCE_ONLY_CASES",
    "accepted_on_purpose",
    "reference_only_check",
]

_RFC = "docs/rfc/implemented/feature/2026-12-01-importer-reads-standard-json-schema.md"
_FILE = "upstream-raw-schema-refusals"


def _because(section: str, what: str) -> str:
    return f"from_json_schema imports this on purpose: {what} ({_RFC}, '{section}')"


_TYPE_LIST = _because("Type lists", "a type list is anyOf, one branch per type")
_ONE_BRANCH = _because("A oneOf of one schema", "a oneOf of one schema is that schema")
_TYPE_BESIDE = _because("A type beside oneOf", "a type beside oneOf holds in every branch")
_OTHER_TYPE = _because(
    "Keywords of another type", "a well-formed keyword of another type never applies"
)
_LITERALS = _because(
    "Literals on every typed node", "enum and const hold on any typed node, as written"
)
_UNDECLARED = _because(
    "Required names without a property schema", "a required name may have no property schema"
)

ACCEPTED_ON_PURPOSE: Mapping[str, str] = MappingProxyType(
    {
        f"{_FILE}/a-type-list": _TYPE_LIST,
        f"{_FILE}/a-oneof-of-one-branch": _ONE_BRANCH,
        f"{_FILE}/a-type-beside-oneof": _TYPE_BESIDE,
        f"{_FILE}/items-beside-type-object": _OTHER_TYPE,
        f"{_FILE}/properties-beside-type-array": _OTHER_TYPE,
        f"{_FILE}/enum-beside-type-object": _LITERALS,
        f"{_FILE}/const-beside-type-array": _LITERALS,
        f"{_FILE}/a-number-enum-of-text": _LITERALS,
        f"{_FILE}/an-integer-enum-holding-a-fraction": _LITERALS,
        f"{_FILE}/a-boolean-const-that-is-a-number": _LITERALS,
        f"{_FILE}/a-const-outside-the-enum": _LITERALS,
        f"{_FILE}/required-naming-an-undeclared-property": _UNDECLARED,
        f"{_FILE}/required-naming-tostring-which-is-not-declared": _UNDECLARED,
    }
)
"""Refusal id to the reason this library imports the schema instead."""


def accepted_on_purpose(vector: SchemaVector, entry: SchemaCase | SchemaRefusal) -> str | None:
    """The reason a refusal entry names a schema this library imports on purpose, or
    ``None`` for any other entry."""
    return ACCEPTED_ON_PURPOSE.get(entry.id)


_RFC = "docs/rfc/implemented/testing/2026-12-01-reference-invariant-companions.md"

_ENCLOSURE = (
    "the reference requires request/context, request/header, todo/write and code-dispatch "
    "records to sit inside a turn; this checker reads them as plugin events, which only "
    f"the seq rules judge ({_RFC}, 'Turn enclosure of log-only events')"
)
_OPEN_AT_FINISH = (
    "the reference refuses a stop, tool-calls or max-tokens finish while a block is "
    "open; stream-grammar lets a block stay open until finish, as the reference's own "
    f"max-tokens-continue log does ({_RFC}, 'Blocks open at finish')"
)

REFERENCE_ONLY_CASES: Mapping[str, str] = MappingProxyType(
    {
        "upstream-session/request-context-outside-any-turn": _ENCLOSURE,
        "upstream-tools/a-code-dispatch-start-outside-any-turn": _ENCLOSURE,
        "upstream-tools/a-logged-code-dispatch-start-outside-any-turn": _ENCLOSURE,
        "upstream-llm-stream/a-stop-finish-with-a-block-still-open": _OPEN_AT_FINISH,
    }
)
"""Case id to the reason this library's checker reports differently."""


def reference_only_check(case: InvariantCase) -> str | None:
    """The reason a case checks something only the reference implementation checks, or
    ``None`` for any other case."""
    return REFERENCE_ONLY_CASES.get(case.id)

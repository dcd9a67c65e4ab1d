"""The schema vector entries this library knowingly disagrees with, and why.

Each entry here is a raw JSON Schema the reference implementation refuses and
`from_json_schema` imports on purpose; the reasons cite the section of the RFC that
records the decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._conformance_refusals import SchemaRefusal
    from .conformance import SchemaCase, SchemaVector

__all__ = ["ACCEPTED_ON_PURPOSE", "accepted_on_purpose"]

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

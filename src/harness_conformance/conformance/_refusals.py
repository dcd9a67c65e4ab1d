"""Refusal entries of schema vectors: schemas and specs a library must refuse.

A schema vector file of refusals holds no spec and no cases::

    {"vectors": 2, "description": ..., "requires": [...], "refusals": [
        {"description": ..., "json_schema": <a JSON Schema>, "problems": [<fragment>, ...]},
        {"description": ..., "requires": [...], "spec": <a plain-dict spec>}
    ]}

An entry holds exactly one of ``json_schema`` (given to `from_json_schema`) or ``spec``
(given to `spec_from_dict`). Either must raise `SchemaError`: accepting the input is a
failure, and so is any other exception. ``problems``, when present, lists text each
of which must occur in at least one reported problem (``<path>: <reason>``), so a
vector can pin where a problem is found without pinning this library's wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..errors import SchemaError
from ..schema._build import spec_from_dict
from ..schema.importer._reader import from_json_schema

__all__ = ["REFUSAL_SOURCES", "SchemaRefusal", "refusal_outcome"]

REFUSAL_SOURCES = ("json_schema", "spec")
"""The keys a refusal entry may hold its input under, exactly one per entry."""


@dataclass(frozen=True, kw_only=True)
class SchemaRefusal:
    """One schema or spec that must be refused with `SchemaError`."""

    id: str
    """``<file stem>/<description slug>``, unique across the file's cases and refusals."""
    description: str
    """What the entry shows."""
    source: Literal["json_schema", "spec"]
    """``json_schema`` for `from_json_schema`, ``spec`` for `spec_from_dict`."""
    schema: Any
    """The input, exactly as JSON parsing gives it."""
    problems: tuple[str, ...] = ()
    """Text each of which must occur in at least one reported problem."""
    upstream: str | None = None
    """The reference implementation's test this entry ports (its own ``upstream``,
    else the file's)."""
    requires: frozenset[str] = frozenset()
    """What the entry requires of an implementation: its file's words and its own."""


def refusal_outcome(refusal: SchemaRefusal) -> Any:
    """``None`` when the input is refused as the entry says; otherwise what happened
    instead: ``"accepted"``, ``"crashed: <exception type>: <message>"``, or the list
    of reported problems when a listed fragment is missing from all of them."""
    build = from_json_schema if refusal.source == "json_schema" else spec_from_dict
    try:
        build(refusal.schema)
    except SchemaError as exc:
        reported = [str(problem) for problem in exc.problems] or [str(exc)]
        missing = [f for f in refusal.problems if not any(f in text for text in reported)]
        return reported if missing else None
    except Exception as exc:
        return f"crashed: {type(exc).__name__}: {exc}"
    return "accepted"

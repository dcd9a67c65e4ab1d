"""Error vectors (`ERROR_VECTORS`): what `error_chain` and `error_info` make of
something thrown, and the facts of a failed model call `LlmFailure` accepts or refuses.

An error vector file (format 2) is ``{"vectors": 2, "description", "upstream"?,
"requires", "cases": [...]}``; a case requires ``op:render-error`` or
``op:check-failure-facts``, declared in the file's ``requires`` or its own. A case either
describes something thrown (`build_thrown`), with the line `error_chain` must render
and/or the `error_info` pair it must give::

    {"description": ..., "error": <thrown>, "chain": "fetch failed: ...",
     "info": {"name": "LlmError", "code": "AUTH"} | null}

or the facts of a failed model call, which `LlmFailure` must accept or refuse (a
refusal must name ``field``)::

    {"description": ..., "failure": {"message", "code", "status"?, "retryAfterMs"?,
     "request_id"?}, "valid": false, "field": "status"}

``retryAfterMs`` is in milliseconds (`LlmFailure.retry_after` is in seconds), and
values JSON cannot carry are tags (`_values`). A description no run could build (a
dangling ``ref``, a code on a plain error...) makes the file malformed; one this library
refuses to build is a result, which a run reports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import LlmFailure, error_chain, error_info
from ._declared import Entry, entry_requires
from ._files import CaseVector, EntryIds
from ._meta import MetaSchema
from ._thrown import ThrownProblem, build_thrown
from ._vector_kind import Difference, VectorKind

__all__ = ["ERROR_VECTORS", "ErrorCase", "run_error_case"]

_FIELDS = {"retryAfterMs": "retry_after"}
"""A failure fact's vector name -> the `LlmFailure` field, where they differ."""
_ABSENT = object()


@dataclass(frozen=True, kw_only=True)
class ErrorCase:
    """One thrown value with its expected rendering, or one set of failure facts."""

    id: str
    """``<file stem>/<description slug>``."""
    vector_id: str
    """The file stem."""
    description: str
    """What the case shows."""
    upstream: str | None = None
    """The reference test the case ports (the case's ``upstream``, else the file's)."""
    error: Any = None
    """The thrown value as described in the file, for a rendering case."""
    expected: Mapping[str, Any]
    """``chain`` and/or ``info`` for a rendering case; ``valid`` (and ``field``) for a
    failure case."""
    failure: Mapping[str, Any] | None = None
    """The failure facts as `LlmFailure` fields (a wait in seconds), for a failure
    case."""
    requires: frozenset[str] = frozenset()
    """What the case requires of an implementation: its file's words and its own."""


def _facts(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Failure facts as `LlmFailure` fields: ``retryAfterMs`` a wait in seconds."""
    facts = {_FIELDS.get(key, key): value for key, value in raw.items()}
    wait = facts.get("retry_after")
    if isinstance(wait, (int, float)) and not isinstance(wait, bool):
        facts["retry_after"] = wait / 1000
    return facts


def _holds(data: Mapping[str, Any]) -> list[Entry]:
    return [
        (
            f"$.cases[{i}]",
            raw,
            {"op:check-failure-facts" if "failure" in raw else "op:render-error"},
        )
        for i, raw in enumerate(data["cases"])
    ]


def _build(
    path: Path, data: dict[str, Any], problems: list[str], _: MetaSchema
) -> CaseVector[ErrorCase]:
    ids = EntryIds(path.stem, problems)
    cases: list[ErrorCase] = []
    for index, raw in enumerate(data["cases"]):
        place = f"$.cases[{index}]"
        common = {
            "id": ids(place, raw["description"]),
            "vector_id": path.stem,
            "description": raw["description"],
            "upstream": raw.get("upstream", data.get("upstream")),
            "requires": entry_requires(data, raw),
        }
        if "failure" in raw:
            expected = {"valid": raw["valid"]}
            if "field" in raw:
                expected["field"] = raw["field"]
            cases.append(ErrorCase(**common, expected=expected, failure=_facts(raw["failure"])))
            continue
        try:
            build_thrown(raw["error"], f"{place}.error")
        except ThrownProblem as exc:
            problems.append(str(exc))
        except Exception:
            pass  # this library refusing to build it is a result, which a run reports
        expected = {key: raw[key] for key in ("chain", "info") if key in raw}
        cases.append(ErrorCase(**common, expected=expected, error=raw["error"]))
    return CaseVector(id=path.stem, path=path, description=data["description"], cases=tuple(cases))


def _names_field(message: str, field: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(field)}(?![A-Za-z0-9_])", message) is not None


def run_error_case(case: ErrorCase) -> dict[str, Any]:
    """What this library gives for the case, in the shape of `ErrorCase.expected`
    (plus ``"raised"`` when building the thrown value failed, and ``"message"`` with
    the text of a refusal)."""
    if case.failure is not None:
        try:
            LlmFailure(**case.failure)
        except (TypeError, ValueError) as exc:
            field = case.expected.get("field")
            ours = _FIELDS.get(field, field) if isinstance(field, str) else None
            named = field if ours is not None and _names_field(str(exc), ours) else None
            return {"valid": False, "field": named, "message": str(exc)}
        return {"valid": True}
    try:
        thrown = build_thrown(case.error)
    except Exception as exc:
        return {"raised": f"{type(exc).__name__}: {exc}"}
    actual: dict[str, Any] = {}
    if "chain" in case.expected:
        actual["chain"] = error_chain(thrown)
    if "info" in case.expected:
        actual["info"] = error_info(thrown)
    return actual


def _compare(case: ErrorCase) -> list[Difference]:
    actual = run_error_case(case)
    agrees = all(actual.get(key, _ABSENT) == value for key, value in case.expected.items())
    return [] if agrees else [(case.description, dict(case.expected), actual)]


_TAXONOMY_RFC = "docs/rfc/implemented/architecture/2026-11-29-error-taxonomy-with-stable-codes.md"

ERROR_VECTORS: VectorKind[CaseVector[ErrorCase], ErrorCase] = VectorKind(
    name="errors",
    meta_schema="error-vector.schema.json",
    words={"rule": (), "profile": (), "wire": ()},
    holds=_holds,
    build=_build,
    checks=lambda vector: vector.cases,
    expected=lambda case: dict(case.expected),
    compare=_compare,
    # Cases that build HarnessError or LlmError with a code the class does not declare.
    gaps=MappingProxyType(
        {
            "error-classes/an-llm-error-carries-a-code-of-the-caller-s-choosing": (
                "LlmError carries only the codes its class declares, so 'CUSTOM_CODE' "
                f"cannot be built (see {_TAXONOMY_RFC})"
            ),
        }
    ),
)
"""Error vectors, under ``conformance/errors/``."""

"""Load and run the error conformance vectors of ``conformance/errors/``.

An error vector file (format 2) is ``{"vectors": 2, "description", "upstream"?,
"requires", "cases": [...]}``; a case requires ``op:render-error`` or
``op:check-failure-facts``, declared in the file's ``requires`` or its own. A case either
describes something thrown, with the line `error_chain` must render and/or the
`error_info` pair it must give::

    {"description": ..., "error": <thrown>, "chain": "fetch failed: ...",
     "info": {"name": "LlmError", "code": "AUTH"} | null}

or the facts of a failed model call, which `LlmFailure` must accept or refuse (a
refusal must name ``field``)::

    {"description": ..., "failure": {"message", "code", "status"?, "retryAfterMs"?,
     "request_id"?}, "valid": false, "field": "status"}

A thrown value is ``{"value": <JSON>}`` (not an error), ``{"unrenderable": true}`` (a
value whose text cannot be read) or an error ``{"name", "message", "code"?, "cause"?,
"errors"?, "id"?, "hostile"?}``. ``HarnessError`` and ``LlmError`` build this library's
classes; any other name a plain exception of that name, or an exception group when
``errors`` lists members (Python has no empty group, so ``"errors": []`` builds a plain
exception). ``hostile`` makes reading the message fail. ``{"ref": <id>}`` stands for
the error of that ``id``: a cause may refer to any error of the case (so cycles can be
written), a member only to one built before it. ``retryAfterMs`` is in milliseconds
(`LlmFailure.retry_after` is in seconds), and values JSON cannot carry are tags
(`_values`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from ..errors import HarnessError, LlmError, LlmFailure, error_chain, error_info
from ._cases import check_cases, first_reason
from ._declared import Entry, file_problems
from ._files import (
    VectorFailure,
    VectorFileError,
    meta_path,
    read_checked,
    shape_checker,
    slug,
)
from ._shapes import hand_error_problems

__all__ = [
    "ERROR_KNOWN_GAPS",
    "ERROR_META_SCHEMA_NAME",
    "ErrorCase",
    "ErrorVector",
    "build_thrown",
    "error_known_gap",
    "load_error_vectors",
    "run_error_case",
    "run_error_vectors",
]

ERROR_META_SCHEMA_NAME = "error-vector.schema.json"
"""File name of the meta-schema, looked up in ``meta/`` beside the vector directory."""

_FIELDS = {"retryAfterMs": "retry_after"}
"""A failure fact's vector name -> the `LlmFailure` field, where they differ."""
_KNOWN: dict[str, tuple[str, ...]] = {"rule": (), "profile": (), "wire": ()}
_OURS: dict[str, type[HarnessError]] = {"HarnessError": HarnessError, "LlmError": LlmError}
_TAXONOMY_RFC = "docs/rfc/implemented/architecture/2026-11-29-error-taxonomy-with-stable-codes.md"


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


@dataclass(frozen=True, kw_only=True)
class ErrorVector:
    """One error vector file."""

    id: str
    """The file stem, e.g. ``error-chain``."""
    path: Path
    """The file the vector was read from."""
    description: str
    """What the file as a whole shows."""
    cases: tuple[ErrorCase, ...]
    """The cases, in file order."""


def _foreign_code(case: ErrorCase) -> str | None:
    """Claims a case that builds `HarnessError` or `LlmError` with a code its class
    does not declare: this library's codes are a closed list per class."""
    pending: list[Any] = [case.error]
    while pending:
        item = pending.pop()
        if not isinstance(item, Mapping):
            continue
        cls = _OURS.get(item.get("name", ""))
        code = item.get("code")
        if cls is not None and code is not None and code not in cls.codes:
            return (
                f"{cls.__name__} carries only the codes its class declares, so "
                f"{code!r} cannot be built (see {_TAXONOMY_RFC})"
            )
        pending += [item.get("cause"), *item.get("errors", ())]
    return None


ERROR_KNOWN_GAPS: list[Callable[[ErrorCase], str | None]] = [_foreign_code]
"""Predicates naming error cases this library knowingly disagrees with: each returns
the reason, or ``None`` for a case it does not claim."""


def error_known_gap(case: ErrorCase) -> str | None:
    """The reason the first claiming predicate of `ERROR_KNOWN_GAPS` gives, if any."""
    return first_reason(ERROR_KNOWN_GAPS, case)


# -- building what a case throws --------------------------------------------------------


class _Problem(ValueError):
    """A description that cannot be built, at a JSON path."""


def _fail(where: str, what: str) -> NoReturn:
    raise _Problem(f"{where}: {what}")


def _raise_unreadable(self: object) -> str:
    raise RuntimeError("this value's text cannot be read")


class _Unrenderable:
    """A thrown value that is not an error and whose text cannot be read."""

    __str__ = _raise_unreadable
    __repr__ = _raise_unreadable


_CLASSES: dict[tuple[str, bool, bool], type[BaseException]] = {}


def _plain_class(name: str, *, group: bool, hostile: bool) -> type[BaseException]:
    """A class named ``name`` (an exception group when ``group``), made once per kind."""
    key = (name, group, hostile)
    if key not in _CLASSES:
        base: type[BaseException] = ExceptionGroup if group else Exception
        body: dict[str, Any] = {"__module__": __name__}
        if hostile and group:
            body["message"] = property(_raise_unreadable)
        elif hostile:
            body["__str__"] = _raise_unreadable
        _CLASSES[key] = type(name, (base,), body)
    return _CLASSES[key]


class _Builder:
    def __init__(self) -> None:
        self.ids: dict[str, BaseException] = {}
        self.causes: list[tuple[BaseException, Any, str]] = []

    def error(self, raw: Mapping[str, Any], where: str) -> BaseException:
        name, message, code = raw["name"], raw["message"], raw.get("code")
        raw_members = raw.get("errors") or []
        members = [
            self.member(item, f"{where}.errors[{index}]") for index, item in enumerate(raw_members)
        ]
        hostile = raw.get("hostile", False)
        cls = _OURS.get(name)
        if cls is None and name in {c.__name__ for c in _ours_subclasses()}:
            _fail(f"{where}.name", "only HarnessError and LlmError of this library can be built")
        if cls is not None and (members or hostile):
            _fail(where, f"a {name} is built without members and with a readable message")
        if cls is None and code is not None:
            _fail(f"{where}.code", "only a HarnessError or an LlmError carries a code")
        exc: BaseException
        if cls is LlmError:
            if code is None:
                _fail(where, "an LlmError needs a code")
            exc = LlmError(LlmFailure(message, code))
        elif cls is HarnessError:
            exc = HarnessError(message, code=code)
        elif members:
            exc = _plain_class(name, group=True, hostile=hostile)(message, members)
        else:
            exc = _plain_class(name, group=False, hostile=hostile)(message)
        if "id" in raw:
            if raw["id"] in self.ids:
                _fail(f"{where}.id", f"id {raw['id']!r} is used twice")
            self.ids[raw["id"]] = exc
        if raw.get("cause") is not None:
            self.causes.append((exc, raw["cause"], f"{where}.cause"))
        return exc

    def member(self, raw: Mapping[str, Any], where: str) -> BaseException:
        if "ref" in raw:
            found = self.ids.get(raw["ref"])
            if found is None:
                _fail(where, f"a member may refer only to an error built before it: {raw['ref']!r}")
            return found
        return self.error(raw, where)

    def link_causes(self) -> None:
        while self.causes:
            exc, raw, where = self.causes.pop(0)
            if "ref" in raw:
                if raw["ref"] not in self.ids:
                    _fail(where, f"no error has the id {raw['ref']!r}")
                exc.__cause__ = self.ids[raw["ref"]]
            else:
                exc.__cause__ = self.error(raw, where)


def _ours_subclasses() -> list[type[HarnessError]]:
    found, pending = [], [HarnessError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending += cls.__subclasses__()
    return found


def build_thrown(raw: Mapping[str, Any], where: str = "$.error") -> object:
    """The value a case's ``error`` describes, built fresh. Raises `ValueError` naming
    the JSON path for a description no run could build (a dangling ``ref``, a code on a
    plain error...), and whatever this library raises when it refuses to build one."""
    if "value" in raw:
        return raw["value"]
    if "unrenderable" in raw:
        return _Unrenderable()
    builder = _Builder()
    root = builder.error(raw, where)
    builder.link_causes()
    return root


def _facts(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Failure facts as `LlmFailure` fields: ``retryAfterMs`` a wait in seconds."""
    facts = {_FIELDS.get(key, key): value for key, value in raw.items()}
    wait = facts.get("retry_after")
    if isinstance(wait, (int, float)) and not isinstance(wait, bool):
        facts["retry_after"] = wait / 1000
    return facts


# -- loading ---------------------------------------------------------------------------


def load_error_vectors(
    directory: str | Path, *, meta_schema: str | Path | None = None
) -> list[ErrorVector]:
    """Every ``*.json`` vector file of ``directory``, sorted by file name.

    ``meta_schema`` defaults to ``../meta/error-vector.schema.json`` beside the
    directory. Raises `VectorFileError` naming the file and JSON path of every problem.
    """
    folder = Path(directory)
    check = shape_checker(
        meta_path(folder, meta_schema, ERROR_META_SCHEMA_NAME), hand_error_problems
    )
    return [_load_file(path, check) for path in sorted(folder.glob("*.json"))]


def _load_file(path: Path, check: Callable[[Any], list[str]]) -> ErrorVector:
    data = read_checked(path, check)
    problems: list[str] = []
    cases: list[ErrorCase] = []
    seen: dict[str, str] = {}
    entries: list[Entry] = [
        (
            f"$.cases[{i}]",
            raw,
            {"op:check-failure-facts" if "failure" in raw else "op:render-error"},
        )
        for i, raw in enumerate(data["cases"])
    ]
    problems += file_problems(data, entries, _KNOWN)
    for index, raw in enumerate(data["cases"]):
        place = f"$.cases[{index}]"
        case_id = f"{path.stem}/{slug(raw['description'])}"
        if case_id in seen:
            problems.append(f"{place}.description: id {case_id!r} repeats {seen[case_id]}")
        seen[case_id] = place
        common = {
            "id": case_id,
            "vector_id": path.stem,
            "description": raw["description"],
            "upstream": raw.get("upstream", data.get("upstream")),
            "requires": frozenset(data["requires"]) | frozenset(raw.get("requires", ())),
        }
        if "failure" in raw:
            expected = {"valid": raw["valid"]}
            if "field" in raw:
                expected["field"] = raw["field"]
            cases.append(ErrorCase(**common, expected=expected, failure=_facts(raw["failure"])))
            continue
        try:
            build_thrown(raw["error"], f"{place}.error")
        except _Problem as exc:
            problems.append(str(exc))
        except Exception:
            pass  # this library refusing to build it is a result, which a run reports
        expected = {key: raw[key] for key in ("chain", "info") if key in raw}
        cases.append(ErrorCase(**common, expected=expected, error=raw["error"]))
    if problems:
        raise VectorFileError(path, problems)
    return ErrorVector(id=path.stem, path=path, description=data["description"], cases=tuple(cases))


# -- running ---------------------------------------------------------------------------


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


def _agrees(case: ErrorCase, actual: Mapping[str, Any]) -> bool:
    return all(actual.get(key, _ABSENT) == value for key, value in case.expected.items())


_ABSENT = object()


def run_error_vectors(directory: str | Path | Iterable[ErrorVector]) -> list[VectorFailure]:
    """Every case this library disagrees with, plus one entry per skipped known gap
    (``skipped`` set); an empty list means full conformance."""
    if isinstance(directory, (str, Path)):
        vectors: Iterable[ErrorVector] = load_error_vectors(directory)
    else:
        vectors = directory
    return check_cases(
        vectors,
        expected=lambda case: dict(case.expected),
        gap=error_known_gap,
        run=run_error_case,
        agrees=_agrees,
    )

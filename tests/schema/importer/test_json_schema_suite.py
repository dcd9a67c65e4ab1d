"""The JSON-Schema-Test-Suite (draft 2020-12, required tests) against the importer and
the validator.

Each case imports its group's schema with `from_json_schema`. A schema the importer
refuses is skipped with the importer's own reasons; the data is never edited. Every
other case must agree with the suite: ``validate_args(spec, data) == []`` exactly when
the case is valid. A case may differ only when a predicate in `KNOWN_GAPS` names it,
and such a case is a strict xfail, so a gap that closes fails the run until its
predicate is removed.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable

import pytest

from _corpus import SuiteCase, import_schema, suite_cases, unique_ids
from harness_conformance.schema import Spec, validate_args

Gap = Callable[[str, str, SuiteCase], "str | None"]

KNOWN_GAPS: list[Gap] = []
"""Predicates ``(file, group, case) -> reason | None`` for documented differences
between the suite and the lossless-JSON validator. Each one carries a docstring saying
why the difference is intended. No case of the copied files needs one: every value the
suite parses from JSON is lossless JSON, which is where our rules and draft 2020-12
could part."""

MIN_EXECUTED = {
    "type": 80,
    "enum": 45,
    "const": 54,
    "properties": 16,
    "required": 18,
    "additionalProperties": 7,
    "items": 10,
    "minItems": 6,
    "maxItems": 6,
    "minLength": 7,
    "maxLength": 7,
    "pattern": 9,
    "minimum": 11,
    "maximum": 8,
    "exclusiveMinimum": 4,
    "exclusiveMaximum": 4,
    "multipleOf": 11,
    "uniqueItems": 43,
    "anyOf": 16,
    "oneOf": 24,
    "ref": 34,
    "boolean_schema": 9,
    "default": 7,
    "format": 133,
}
"""How many cases of each keyword file must run (not be skipped), so the suite cannot
quietly skip what the DSL supports. ``defs.json`` has no entry: its only group
``$ref``s the remote 2020-12 metaschema."""

CASES = list(suite_cases())
SCHEMAS = {(c.file, c.group_index): c.schema for c in CASES}


@functools.cache
def _import(file: str, group_index: int) -> tuple[Spec | None, str | None]:
    return import_schema(SCHEMAS[file, group_index])


def unsupported(case: SuiteCase) -> str | None:
    """Why the case cannot run: the importer's reasons for refusing its schema."""
    _, reasons = _import(case.file, case.group_index)
    return None if reasons is None else f"from_json_schema refuses the schema: {reasons}"


def known_gap(case: SuiteCase) -> str | None:
    for predicate in KNOWN_GAPS:
        reason = predicate(case.file, case.group, case)
        if reason is not None:
            return reason
    return None


def _param(case: SuiteCase) -> object:
    reason = known_gap(case)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason is not None else []
    return pytest.param(case, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES], ids=unique_ids([c.id for c in CASES]))
def test_case(case: SuiteCase) -> None:
    reason = unsupported(case)
    if reason is not None:
        pytest.skip(reason)
    spec, _ = _import(case.file, case.group_index)
    assert spec is not None
    messages = validate_args(spec, case.data)
    assert (messages == []) == case.valid, (
        f"{case.file} / {case.group} / {case.description}: suite says "
        f"{'valid' if case.valid else 'invalid'}, validate_args gave {messages}"
    )


def test_supported_keywords_are_exercised() -> None:
    executed: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    crashed: list[str] = []
    gaps_used: Counter[int] = Counter()
    for case in CASES:
        try:
            reason = unsupported(case)
        except Exception as exc:  # reported by test_case; counted here as not executed
            crashed.append(f"{case.id}: {exc!r}")
            continue
        if reason is not None:
            skipped[case.file] += 1
            continue
        for index, predicate in enumerate(KNOWN_GAPS):
            if predicate(case.file, case.group, case) is not None:
                gaps_used[index] += 1
        executed[case.file] += 1
    short = {f: n for f, n in MIN_EXECUTED.items() if executed[f] < n}
    assert not short, (
        f"too few cases run (file: run / minimum): "
        f"{ {f: (executed[f], n) for f, n in short.items()} }; "
        f"run {sum(executed.values())}, skipped {sum(skipped.values())}, "
        f"import crashed {len(crashed)}"
    )
    unused = [KNOWN_GAPS[i].__name__ for i in range(len(KNOWN_GAPS)) if not gaps_used[i]]
    assert not unused, f"known-gap predicates that match no case: {unused}"
    for predicate in KNOWN_GAPS:
        assert predicate.__doc__, f"{predicate.__name__} must say why in its docstring"

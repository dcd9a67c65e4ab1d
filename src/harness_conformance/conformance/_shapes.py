"""Hand checks of vector files, for when python-jsonschema is not installed: the rules of
``conformance/meta/schema-vector.schema.json`` and ``error-vector.schema.json`` as
code. Each problem is ``<JSON path>: <what is wrong>``.
"""

from __future__ import annotations

import re
from typing import Any

from ._declared import WORD
from ._files import slug
from ._refusals import REFUSAL_SOURCES

__all__ = [
    "hand_error_problems",
    "hand_requires",
    "hand_shape_problems",
]

_TOP_KEYS = {"description": str, "requires": list}
_OPTIONAL_TOP_KEYS = {
    "upstream": str,
    "root_label": str,
    "spec": dict,
    "json_schema": dict,
    "cases": list,
    "refusals": list,
}
_CASE_GROUP = ("spec", "json_schema", "cases", "root_label")
_CASE_KEYS = ("description", "args", "violations")
_OPTIONAL_CASE_KEYS = ("upstream", "requires")
_REFUSAL_KEYS = ("description", "upstream", "requires", "problems", *REFUSAL_SOURCES)


def hand_requires(value: Any, where: str) -> list[str]:
    """The meta-schemas' rule for a ``requires`` list: unique requirement words."""
    words = value if isinstance(value, list) else [None]
    if all(isinstance(w, str) and WORD.fullmatch(w) for w in words) and len(set(words)) == len(
        words
    ):
        return []
    return [f"{where}: must be an array of unique requirement words (kind:name)"]


def hand_shape_problems(data: Any) -> list[str]:
    """The meta-schema's rules, for when python-jsonschema is not installed."""
    if not isinstance(data, dict):
        return ["$: must be an object"]
    problems = [f"$: missing required key {key!r}" for key in _TOP_KEYS if key not in data]
    group = [key for key in _CASE_GROUP if key in data]
    if group and len(group) < len(_CASE_GROUP):
        absent = ", ".join(repr(key) for key in _CASE_GROUP if key not in data)
        problems.append(
            f"$: 'spec', 'json_schema', 'cases' and 'root_label' go together; missing {absent}"
        )
    if group and "refusals" in data:
        problems.append("$: a file holds a spec and its cases, or refusals, not both")
    if not group and "refusals" not in data:
        problems.append("$: must hold 'spec', 'json_schema' and 'cases', or 'refusals'")
    if "root_label" in data and data["root_label"] != "":
        problems.append('$.root_label: must be "", the only label this format defines')
    if "requires" in data:
        problems += hand_requires(data["requires"], "$.requires")
    allowed = {"vectors"} | _TOP_KEYS.keys() | _OPTIONAL_TOP_KEYS.keys()
    problems += [f"$: unknown key {key!r}" for key in data if key not in allowed]
    for key, kind in (_TOP_KEYS | _OPTIONAL_TOP_KEYS).items():
        if key in data and not isinstance(data[key], kind):
            problems.append(f"$.{key}: must be {_KIND_NAMES[kind]}")
    for key in ("description", "upstream"):
        if isinstance(data.get(key), str) and not data[key]:
            problems.append(f"$.{key}: must not be empty")
    cases = data.get("cases")
    if isinstance(cases, list):
        if not cases:
            problems.append("$.cases: must hold at least one case")
        for index, case in enumerate(cases):
            problems += _hand_case_problems(case, f"$.cases[{index}]")
    refusals = data.get("refusals")
    if isinstance(refusals, list):
        if not refusals:
            problems.append("$.refusals: must hold at least one refusal")
        for index, entry in enumerate(refusals):
            problems += _hand_refusal_problems(entry, f"$.refusals[{index}]")
    return problems


_KIND_NAMES: dict[type, str] = {str: "a string", dict: "an object", list: "an array"}


def _hand_case_problems(case: Any, where: str) -> list[str]:
    if not isinstance(case, dict):
        return [f"{where}: must be an object"]
    problems = [f"{where}: missing required key {key!r}" for key in _CASE_KEYS if key not in case]
    allowed = (*_CASE_KEYS, *_OPTIONAL_CASE_KEYS)
    problems += [f"{where}: unknown key {key!r}" for key in case if key not in allowed]
    upstream = case.get("upstream")
    if "upstream" in case and not (isinstance(upstream, str) and upstream):
        problems.append(f"{where}.upstream: must be a non-empty string")
    description = case.get("description")
    if "description" in case and not (isinstance(description, str) and slug(description)):
        problems.append(f"{where}.description: must be a string with a letter or digit")
    if "requires" in case:
        problems += hand_requires(case["requires"], f"{where}.requires")
    violations = case.get("violations")
    if "violations" in case and not (
        isinstance(violations, list) and all(isinstance(m, str) and m for m in violations)
    ):
        problems.append(f"{where}.violations: must be an array of non-empty strings")
    return problems


def _hand_refusal_problems(entry: Any, where: str) -> list[str]:
    """The meta-schema's rules for one refusal entry, for when python-jsonschema is
    not installed."""
    if not isinstance(entry, dict):
        return [f"{where}: must be an object"]
    problems = [f"{where}: unknown key {key!r}" for key in entry if key not in _REFUSAL_KEYS]
    if "description" not in entry:
        problems.append(f"{where}: missing required key 'description'")
    sources = [key for key in REFUSAL_SOURCES if key in entry]
    if len(sources) != 1:
        problems.append(f"{where}: must hold exactly one of 'json_schema' or 'spec'")
    description = entry.get("description")
    if "description" in entry and not (isinstance(description, str) and slug(description)):
        problems.append(f"{where}.description: must be a string with a letter or digit")
    upstream = entry.get("upstream")
    if "upstream" in entry and not (isinstance(upstream, str) and upstream):
        problems.append(f"{where}.upstream: must be a non-empty string")
    if "requires" in entry:
        problems += hand_requires(entry["requires"], f"{where}.requires")
    fragments = entry.get("problems")
    if "problems" in entry and not (
        isinstance(fragments, list) and all(isinstance(f, str) and f for f in fragments)
    ):
        problems.append(f"{where}.problems: must be an array of non-empty strings")
    return problems


_FILE_KEYS = {"vectors", "description", "upstream", "requires", "cases"}
_ERROR_CASE_KEYS = {"description", "upstream", "requires", "error", "chain", "info"}
_FAILURE_CASE_KEYS = {"description", "upstream", "requires", "failure", "valid", "field"}
_ERROR_KEYS = {"id", "name", "message", "code", "cause", "errors", "hostile"}
_FACTS = ("message", "code", "status", "retryAfterMs", "request_id")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _text(value: Any, *, empty: bool = False) -> bool:
    return isinstance(value, str) and (empty or bool(value))


def _keys(
    data: dict[str, Any], where: str, allowed: set[str], required: tuple[str, ...]
) -> list[str]:
    problems = [f"{where}: missing required key {key!r}" for key in required if key not in data]
    return problems + [f"{where}: unknown key {key!r}" for key in data if key not in allowed]


def hand_error_problems(data: Any) -> list[str]:
    """Every way ``data`` breaks the error vector meta-schema."""
    if not isinstance(data, dict):
        return ["$: must be an object"]
    problems = _keys(data, "$", _FILE_KEYS, ("vectors", "description", "requires", "cases"))
    if "requires" in data:
        problems += hand_requires(data["requires"], "$.requires")
    if "description" in data and not _text(data["description"]):
        problems.append("$.description: must be a non-empty string")
    if "upstream" in data and not _text(data["upstream"]):
        problems.append("$.upstream: must be a non-empty string")
    cases = data.get("cases")
    if "cases" in data and not (isinstance(cases, list) and cases):
        return [*problems, "$.cases: must be a non-empty array"]
    for index, case in enumerate(cases or ()):
        problems += _case(case, f"$.cases[{index}]")
    return problems


def _case(case: Any, where: str) -> list[str]:
    if not isinstance(case, dict):
        return [f"{where}: must be an object"]
    if "failure" in case:
        problems = _keys(case, where, _FAILURE_CASE_KEYS, ("description", "failure", "valid"))
        problems += _failure(case, where)
    else:
        problems = _keys(case, where, _ERROR_CASE_KEYS, ("description", "error"))
        if "chain" not in case and "info" not in case:
            problems.append(f"{where}: needs 'chain', 'info' or both")
        if "chain" in case and not isinstance(case["chain"], str):
            problems.append(f"{where}.chain: must be a string")
        info = case.get("info")
        if info is not None and not (
            isinstance(info, dict)
            and info.keys() == {"name", "code"}
            and all(_text(v) for v in info.values())
        ):
            problems.append(f'{where}.info: must be null or {{"name": ..., "code": ...}}')
        if "error" in case:
            problems += _thrown(case["error"], f"{where}.error")
    description = case.get("description")
    if "description" in case and not (isinstance(description, str) and slug(description)):
        problems.append(f"{where}.description: must be a string with a letter or digit")
    if "upstream" in case and not _text(case["upstream"]):
        problems.append(f"{where}.upstream: must be a non-empty string")
    if "requires" in case:
        problems += hand_requires(case["requires"], f"{where}.requires")
    return problems


def _failure(case: dict[str, Any], where: str) -> list[str]:
    problems: list[str] = []
    facts = case["failure"]
    if not isinstance(facts, dict):
        problems.append(f"{where}.failure: must be an object")
        facts = {}
    problems += _keys(facts, f"{where}.failure", set(_FACTS), ("message", "code"))
    problems += [
        f'{where}.failure.{key}: an object must be a tagged value {{"$value": ...}}'
        for key, value in facts.items()
        if isinstance(value, dict) and "$value" not in value
    ]
    valid = case.get("valid")
    if "valid" in case and not isinstance(valid, bool):
        problems.append(f"{where}.valid: must be a boolean")
    if valid is False and "field" not in case:
        problems.append(f"{where}: a refused failure needs 'field'")
    if valid is True and "field" in case:
        problems.append(f"{where}.field: only a refused failure names a field")
    if "field" in case and case["field"] not in _FACTS:
        problems.append(f"{where}.field: must be one of {list(_FACTS)}")
    return problems


def _thrown(value: Any, where: str) -> list[str]:
    if isinstance(value, dict) and "value" in value:
        return _keys(value, where, {"value"}, ())
    if isinstance(value, dict) and "unrenderable" in value:
        problems = _keys(value, where, {"unrenderable"}, ())
        if value["unrenderable"] is not True:
            problems.append(f"{where}.unrenderable: must be true")
        return problems
    return _error(value, where)


def _error(value: Any, where: str) -> list[str]:
    """The problems of an error description; iterative, so nesting depth is no risk."""
    problems: list[str] = []
    pending: list[tuple[Any, str, bool]] = [(value, where, False)]
    while pending:
        item, place, may_ref = pending.pop()
        if not isinstance(item, dict):
            problems.append(f"{place}: must be an object")
            continue
        if may_ref and "ref" in item:
            problems += _keys(item, place, {"ref"}, ())
            if not _text(item["ref"]):
                problems.append(f"{place}.ref: must be a non-empty string")
            continue
        problems += _keys(item, place, _ERROR_KEYS, ("name", "message"))
        if "name" in item and not (isinstance(item["name"], str) and _NAME.fullmatch(item["name"])):
            problems.append(f"{place}.name: must be an identifier")
        if "message" in item and not isinstance(item["message"], str):
            problems.append(f"{place}.message: must be a string")
        for key in ("id", "code"):
            if key in item and not _text(item[key]):
                problems.append(f"{place}.{key}: must be a non-empty string")
        if "hostile" in item and item["hostile"] is not True:
            problems.append(f"{place}.hostile: must be true")
        if item.get("cause") is not None:
            pending.append((item["cause"], f"{place}.cause", True))
        members = item.get("errors", [])
        if not isinstance(members, list):
            problems.append(f"{place}.errors: must be an array")
            members = []
        pending += [(m, f"{place}.errors[{i}]", True) for i, m in enumerate(members)]
    return problems

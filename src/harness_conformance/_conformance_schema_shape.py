"""The hand check of schema vector files, for when python-jsonschema is not installed.

`hand_shape_problems` applies the rules of ``conformance/meta/schema-vector.schema.json``
to a parsed file and lists each problem as ``<JSON path>: <what>``; the loader uses it
in place of the meta-schema, so the vectors also load where only the library's own
dependencies are installed.
"""

from __future__ import annotations

from typing import Any

from ._conformance_files import slug
from ._conformance_refusals import REFUSAL_SOURCES

__all__ = ["hand_shape_problems"]

_TOP_KEYS = {"description": str}
_OPTIONAL_TOP_KEYS = {
    "upstream": str,
    "spec": dict,
    "json_schema": dict,
    "cases": list,
    "refusals": list,
}
_CASE_GROUP = ("spec", "json_schema", "cases")
_CASE_KEYS = ("description", "args", "violations")
_OPTIONAL_CASE_KEYS = ("upstream",)
_REFUSAL_KEYS = ("description", "upstream", "problems", *REFUSAL_SOURCES)


def hand_shape_problems(data: Any) -> list[str]:
    """The meta-schema's rules, for when python-jsonschema is not installed."""
    if not isinstance(data, dict):
        return ["$: must be an object"]
    problems = [f"$: missing required key {key!r}" for key in _TOP_KEYS if key not in data]
    group = [key for key in _CASE_GROUP if key in data]
    if group and len(group) < len(_CASE_GROUP):
        absent = ", ".join(repr(key) for key in _CASE_GROUP if key not in data)
        problems.append(f"$: 'spec', 'json_schema' and 'cases' go together; missing {absent}")
    if not group and "refusals" not in data:
        problems.append("$: must hold 'spec', 'json_schema' and 'cases', or 'refusals'")
    allowed = _TOP_KEYS.keys() | _OPTIONAL_TOP_KEYS.keys()
    problems += [f"$: unknown key {key!r}" for key in data if key not in allowed]
    for key, kind in (_TOP_KEYS | _OPTIONAL_TOP_KEYS).items():
        if key in data and not isinstance(data[key], kind):
            problems.append(f"$.{key}: must be {_KIND_NAMES[kind]}")
    for key in ("description", *_OPTIONAL_TOP_KEYS):
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
    fragments = entry.get("problems")
    if "problems" in entry and not (
        isinstance(fragments, list) and all(isinstance(f, str) and f for f in fragments)
    ):
        problems.append(f"{where}.problems: must be an array of non-empty strings")
    return problems

"""Rewrite conformance vector files of format 1 into format 2, in place.

Usage: ``python scripts/rewrite-vectors-2.py PATH [PATH ...]``, each a vector file or a
folder of them (``conformance/`` itself, a kind's folder, a replay vector's folder). The
kind of a file is the name of the folder holding it (``schema``, ``invariants``,
``errors``, ``wire``; ``expected.json`` and ``fault.json`` of a replay vector).

Each file gains ``"vectors": 2`` and the ``requires`` its entries hold (derived as the
loaders derive them); values JSON cannot carry become ``{"$value": ...}`` tags;
durations become milliseconds (``retry_after`` -> ``retryAfterMs``); an invariant case
gains ``verdict`` and ``first``; a schema file gains ``root_label``. Number text is kept
as written. A file already in format 2 is left alone. A schema file holding both a spec
and refusals is refused: split it first, since a file's ``requires`` covers all of it.

Exit status: 0 when every file was rewritten or already current, 1 when one was refused.
"""

from __future__ import annotations

import json
import math
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness_conformance.conformance._declared import (
    FORMAT,
    log_requirements,
    spec_requirements,
)
from harness_conformance.conformance._values import TAG, number_problem

WIDTH = 120
"""A container is written on one line when that line fits in this many columns."""


class Number(str):
    """A JSON number kept as its text."""


def parse(text: str) -> Any:
    return json.loads(text, parse_float=Number, parse_int=Number, object_pairs_hook=dict)


def tagged(value: Any) -> Any:
    """``value`` with numbers and ``{"$number": ...}`` objects JSON cannot carry as tags."""
    if isinstance(value, Number):
        if number_problem(value) is None:
            return value
        if float(value) == 0:
            return {TAG: "-0.0"}
        if math.isinf(float(value)) and not value.lstrip("-").isdigit():
            return {TAG: "-inf" if value.startswith("-") else "+inf"}
        return {TAG: "int", "digits": str(value)}
    if isinstance(value, dict) and value.keys() == {"$number"}:
        return {TAG: {"NaN": "nan", "Infinity": "+inf", "-Infinity": "-inf"}[value["$number"]]}
    if isinstance(value, dict):
        return {key: tagged(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [tagged(item) for item in value]
    return value


def milliseconds(value: Any) -> Any:
    """A wait in seconds as milliseconds; any other value as it is."""
    if isinstance(value, Number):
        ms = Decimal(value) * 1000
        return Number(str(int(ms)) if ms == ms.to_integral_value() else str(ms.normalize()))
    return value


def renamed_wait(facts: dict[str, Any]) -> dict[str, Any]:
    return {
        ("retryAfterMs" if key == "retry_after" else key): (
            milliseconds(value) if key == "retry_after" else value
        )
        for key, value in facts.items()
    }


def front(data: dict[str, Any], *pairs: tuple[str, Any]) -> dict[str, Any]:
    """``data`` with ``vectors`` first and ``pairs`` after its description and upstream."""
    out: dict[str, Any] = {"vectors": Number(str(FORMAT))}
    head = [key for key in ("description", "upstream") if key in data]
    out.update((key, data[key]) for key in head)
    out.update((key, value) for key, value in pairs if value is not None)
    out.update((key, value) for key, value in data.items() if key not in out)
    return out


def split(derived: list[set[str]]) -> tuple[list[str], list[list[str]]]:
    """The words every entry shares, and each entry's own words beyond them."""
    shared = set.intersection(*derived) if derived else set()
    return sorted(shared), [sorted(words - shared) for words in derived]


def with_own(entry: dict[str, Any], words: list[str], *after: tuple[str, Any]) -> dict[str, Any]:
    out = {key: entry[key] for key in ("description", "upstream") if key in entry}
    if words:
        out["requires"] = words
    out.update(after)
    out.update((key, value) for key, value in entry.items() if key not in out)
    return out


def schema_file(data: dict[str, Any]) -> dict[str, Any]:
    if "spec" in data and "refusals" in data:
        raise ValueError("holds a spec and refusals: move the refusals to a file of their own")
    if "spec" in data:
        words = sorted({"op:compile-spec", "op:validate"} | spec_requirements(data["spec"]))
        return front(data, ("requires", words), ("root_label", ""))
    derived = [
        {"op:import-schema"}
        if "json_schema" in entry
        else {"op:refuse-spec"} | spec_requirements(entry["spec"])
        for entry in data["refusals"]
    ]
    shared, own = split(derived)
    refusals = [with_own(e, w) for e, w in zip(data["refusals"], own, strict=True)]
    return front(data, ("requires", shared), ("refusals", refusals))


def invariant_file(data: dict[str, Any]) -> dict[str, Any]:
    if "cases" not in data:
        single = {key: data[key] for key in ("profile", "log", "violations")}
        data = {
            "description": data["description"],
            **({"upstream": data["upstream"]} if "upstream" in data else {}),
            "cases": [{"description": data["profile"], **single}],
        }
    logs = data.get("logs", {})
    derived = []
    for case in data["cases"]:
        log = logs[case["log"]] if isinstance(case["log"], str) else case["log"]
        words = {"op:check-log", f"profile:{case['profile']}"} | log_requirements(log)
        derived.append(words | {f"rule:{v['rule']}" for v in case["violations"]})
    shared, own = split(derived)
    cases = []
    for case, words in zip(data["cases"], own, strict=True):
        violations = case["violations"]
        seqs = [int(v["seq"]) for v in violations if v["seq"] is not None]
        first = None
        if violations:
            at = min(seqs) if seqs else None
            written = [v["seq"] for v in violations if v["seq"] is not None and int(v["seq"]) == at]
            rules = sorted({v["rule"] for v in violations if (v["seq"] and int(v["seq"])) == at})
            first = {"seq": written[0] if written else None, "rules": rules}
        verdict = "invalid" if violations else "valid"
        rest = {k: v for k, v in case.items() if k != "violations"}
        cases.append(
            with_own(rest, words, ("profile", case["profile"]), ("log", case["log"]))
            | {"verdict": verdict, "first": first, "violations": violations}
        )
    return front(data, ("requires", shared), ("cases", cases))


def error_file(data: dict[str, Any]) -> dict[str, Any]:
    derived = [
        {"op:check-failure-facts"} if "failure" in case else {"op:render-error"}
        for case in data["cases"]
    ]
    shared, own = split(derived)
    cases = []
    for case, words in zip(data["cases"], own, strict=True):
        if "failure" in case:
            case = dict(case, failure=renamed_wait(case["failure"]))
            if case.get("field") == "retry_after":
                case["field"] = "retryAfterMs"
        cases.append(with_own(case, words))
    return front(data, ("requires", shared), ("cases", cases))


def wire_file(data: dict[str, Any]) -> dict[str, Any]:
    derived = []
    for case in data["cases"]:
        words = {f"wire:{data['format']}"}
        words.add("op:read-request" if "request_body" in case else "op:read-response")
        if "body" in case:
            words.add("wire:non-streamed-body")
        derived.append(words)
    shared, own = split(derived)
    cases = []
    for case, words in zip(data["cases"], own, strict=True):
        if isinstance(case.get("failure"), dict):
            case = dict(case, failure=renamed_wait(case["failure"]))
        cases.append(with_own(case, words))
    return front(data, ("requires", shared), ("cases", cases))


def expected_file(data: dict[str, Any]) -> dict[str, Any]:
    out = front(data, ("requires", ["op:replay"]))
    if "failures" in out:
        out["failures"] = [renamed_wait(failure) for failure in out["failures"]]
    return out


def fault_file(data: dict[str, Any]) -> dict[str, Any]:
    if isinstance(data.get("fault"), dict):
        return dict(data, fault=renamed_wait(data["fault"]))
    return data


KINDS = {
    "schema": schema_file,
    "invariants": invariant_file,
    "errors": error_file,
    "wire": wire_file,
}


def dump(value: Any, indent: int = 0, *, item: bool = False) -> str:
    """JSON text: a container on one line when it fits (an event or chunk in a list
    always), else one member per line."""
    if isinstance(value, Number):
        return str(value)
    if not isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    inline = _inline(value)
    typed = item and isinstance(value, dict) and "type" in value
    if not value or (indent > 0 and (indent + len(inline) <= WIDTH or typed)):
        return inline
    pad = " " * (indent + 2)
    if isinstance(value, list):
        lines = [pad + dump(v, indent + 2, item=True) for v in value]
        return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"
    lines = [
        f"{pad}{json.dumps(k, ensure_ascii=False)}: {dump(v, indent + 2)}" for k, v in value.items()
    ]
    return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"


def _inline(value: Any) -> str:
    if isinstance(value, Number):
        return str(value)
    if isinstance(value, dict):
        members = (f"{json.dumps(k, ensure_ascii=False)}: {_inline(v)}" for k, v in value.items())
        return "{" + ", ".join(members) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def rewrite(path: Path) -> str:
    """Rewrite one file; what happened, in a word."""
    data = parse(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and data.get("vectors") == FORMAT:
        return "current"
    if path.name == "expected.json":
        out = expected_file(data)
    elif path.name == "fault.json":
        if isinstance(data.get("fault"), dict) and "retryAfterMs" in data["fault"]:
            return "current"
        out = fault_file(data)
    else:
        out = KINDS[path.parent.name](data)
    path.write_text(dump(tagged(out)) + "\n", encoding="utf-8")
    return "rewritten"


def files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
            continue
        for file in sorted(path.rglob("*.json")):
            kind = file.parent.name
            in_meta = "meta" in file.relative_to(path).parts
            if not in_meta and (kind in KINDS or file.name in ("expected.json", "fault.json")):
                found.append(file)
    return found


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    refused = 0
    for path in files([Path(arg) for arg in argv]):
        try:
            print(f"{path}: {rewrite(path)}")
        except (ValueError, KeyError, TypeError) as exc:
            refused += 1
            print(f"{path}: refused: {exc}", file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

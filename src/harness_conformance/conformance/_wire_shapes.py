"""The rules of ``conformance/meta/wire-vector.schema.json`` as code, for when
python-jsonschema is not installed, and the checks of expected chunks every load makes.
Each problem is ``<JSON path>: <what is wrong>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ..errors import LlmError
from ..events import chunk_from_json
from ._files import slug
from ._shapes import hand_requires

__all__ = ["WIRE_WORDS", "WireKind", "case_kind", "chunk_problems", "hand_wire_problems"]

WireKind = Literal["response", "http-error", "request"]

_FORMATS = ("openai-chat", "anthropic-messages", "openai-responses", "gemini")
WIRE_WORDS = (*_FORMATS, "non-streamed-body")
"""The ``wire:`` requirement words."""
_CODES = LlmError.codes
_REQUEST_KEYS = ("model", "messages", "tools", "server_tools", "stream")
_CASE_KEYS: dict[str, tuple[set[str], tuple[str, ...]]] = {
    "response": (
        {
            "description",
            "upstream",
            "requires",
            "events",
            "body",
            "chunks",
            "failure",
            "server_calls",
        },
        ("description",),
    ),
    "http-error": (
        {"description", "upstream", "requires", "status", "error_body", "headers", "failure"},
        ("description", "status", "error_body", "failure"),
    ),
    "request": (
        {"description", "upstream", "requires", "url", "request_body", "request"},
        ("description", "url", "request_body", "request"),
    ),
}
_CHUNK_KEYS = {
    "block-start": {"index", "blockType"},
    "text-delta": {"index", "text"},
    "reasoning-delta": {"index", "text"},
    "tool-call-delta": {"index", "id", "name", "argumentsDelta"},
    "block-end": {"index", "block"},
    "usage": {"usage"},
    "finish": {"reason"},
}


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def case_kind(case: Mapping[str, Any]) -> WireKind:
    """Which kind a case is, told by its input keys: a request has ``url``, an HTTP
    error ``status``, and anything else is a response."""
    if "url" in case or "request_body" in case or "request" in case:
        return "request"
    if "status" in case or "error_body" in case or "headers" in case:
        return "http-error"
    return "response"


def chunk_problems(chunks: Any, where: str) -> list[str]:
    """The problems of a list of expected chunks: an unknown type or key, or a value the
    session-log codec (`chunk_from_json`) refuses."""
    if not isinstance(chunks, list):
        return [f"{where}: must be an array of chunks"]
    problems: list[str] = []
    for number, chunk in enumerate(chunks):
        at = f"{where}[{number}]"
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        allowed = _CHUNK_KEYS.get(kind) if isinstance(kind, str) else None
        if allowed is None:
            problems.append(f"{at}: must be a chunk with a known 'type'")
            continue
        problems += [f"{at}: unknown key {key!r}" for key in chunk if key not in allowed | {"type"}]
        try:
            chunk_from_json(chunk, at)
        except ValueError as exc:
            problems.append(str(exc))
    return problems


def _response_problems(case: Mapping[str, Any], where: str) -> list[str]:
    problems: list[str] = []
    if ("events" in case) == ("body" in case):
        problems.append(f"{where}: needs exactly one of 'events' and 'body'")
    if ("chunks" in case) == ("failure" in case):
        problems.append(f"{where}: needs exactly one of 'chunks' and 'failure'")
    if "events" in case and not isinstance(case["events"], list):
        problems.append(f"{where}.events: must be an array")
    if "chunks" in case:
        problems += chunk_problems(case["chunks"], f"{where}.chunks")
    failure = case.get("failure")
    if "failure" in case:
        if not isinstance(failure, dict) or set(failure) != {"code", "chunks"}:
            problems.append(f'{where}.failure: must be {{"code", "chunks"}}')
        else:
            if failure["code"] not in _CODES:
                problems.append(f"{where}.failure.code: must be one of {list(_CODES)}")
            problems += chunk_problems(failure["chunks"], f"{where}.failure.chunks")
    calls = case.get("server_calls", [])
    if not isinstance(calls, list) or not all(
        isinstance(c, dict)
        and set(c) == {"type", "name", "id"}
        and _text(c["type"])
        and _text(c["name"])
        and (c["id"] is None or isinstance(c["id"], str))
        for c in calls
    ):
        problems.append(f'{where}.server_calls: must be an array of {{"type", "name", "id"}}')
    return problems


def _http_problems(case: Mapping[str, Any], where: str) -> list[str]:
    problems: list[str] = []
    if "status" in case and type(case["status"]) is not int:
        problems.append(f"{where}.status: must be an integer")
    headers = case.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        problems.append(f"{where}.headers: must be an object of strings")
    failure = case.get("failure")
    if "failure" not in case:
        return problems
    if not isinstance(failure, dict) or not {"code", "status"} <= set(failure) <= {
        "code",
        "status",
        "retryAfterMs",
    }:
        return [*problems, f'{where}.failure: must be {{"code", "status", "retryAfterMs"?}}']
    if failure["code"] not in _CODES:
        problems.append(f"{where}.failure.code: must be one of {list(_CODES)}")
    if failure["status"] is not None and type(failure["status"]) is not int:
        problems.append(f"{where}.failure.status: must be an integer or null")
    wait = failure.get("retryAfterMs", 1)
    if type(wait) not in (int, float) or wait <= 0:
        problems.append(f"{where}.failure.retryAfterMs: must be a number above 0")
    return problems


def _request_problems(case: Mapping[str, Any], where: str) -> list[str]:
    problems: list[str] = []
    if "url" in case and not (isinstance(case["url"], str) and case["url"]):
        problems.append(f"{where}.url: must be a non-empty string")
    if "request_body" in case and not isinstance(case["request_body"], dict):
        problems.append(f"{where}.request_body: must be an object")
    request = case.get("request")
    if "request" not in case:
        return problems
    if not (isinstance(request, dict) and set(request) == set(_REQUEST_KEYS)):
        return [*problems, f"{where}.request: must hold exactly {list(_REQUEST_KEYS)}"]
    if request["model"] is not None and not isinstance(request["model"], str):
        problems.append(f"{where}.request.model: must be a string or null")
    for key in ("messages", "tools"):
        if not (isinstance(request[key], list) and all(isinstance(m, dict) for m in request[key])):
            problems.append(f"{where}.request.{key}: must be an array of objects")
    tools = request["server_tools"]
    if not (isinstance(tools, list) and all(isinstance(t, str) for t in tools)):
        problems.append(f"{where}.request.server_tools: must be an array of strings")
    if not isinstance(request["stream"], bool):
        problems.append(f"{where}.request.stream: must be a boolean")
    return problems


def hand_wire_problems(data: Any) -> list[str]:
    """Every way ``data`` breaks the wire vector meta-schema, for when python-jsonschema
    is not installed; each problem is ``<JSON path>: <what is wrong>``."""
    if not isinstance(data, dict):
        return ["$: must be an object"]
    problems = [
        f"$: missing required key {k!r}"
        for k in ("vectors", "description", "requires", "format", "cases")
        if k not in data
    ]
    allowed = {"vectors", "description", "requires", "format", "upstream", "cases"}
    problems += [f"$: unknown key {key!r}" for key in data if key not in allowed]
    for key in ("description", "upstream"):
        if key in data and not (isinstance(data[key], str) and data[key]):
            problems.append(f"$.{key}: must be a non-empty string")
    if "format" in data and data["format"] not in _FORMATS:
        problems.append(f"$.format: must be one of {list(_FORMATS)}")
    if "requires" in data:
        problems += hand_requires(data["requires"], "$.requires")
    cases = data.get("cases")
    if "cases" in data and not (isinstance(cases, list) and cases):
        return [*problems, "$.cases: must be a non-empty array"]
    for index, case in enumerate(cases or ()):
        where = f"$.cases[{index}]"
        if not isinstance(case, dict):
            problems.append(f"{where}: must be an object")
            continue
        kind = case_kind(case)
        keys, required = _CASE_KEYS[kind]
        problems += [f"{where}: missing required key {k!r}" for k in required if k not in case]
        problems += [f"{where}: unknown key {k!r} for a {kind} case" for k in case if k not in keys]
        description = case.get("description")
        if "description" in case and not (isinstance(description, str) and slug(description)):
            problems.append(f"{where}.description: must be a string with a letter or digit")
        if "upstream" in case and not (isinstance(case["upstream"], str) and case["upstream"]):
            problems.append(f"{where}.upstream: must be a non-empty string")
        if "requires" in case:
            problems += hand_requires(case["requires"], f"{where}.requires")
        check = {
            "response": _response_problems,
            "http-error": _http_problems,
            "request": _request_problems,
        }[kind]
        problems += check(case, where)
    return problems

"""`replay_foreign` over the third-party cassette corpus and over small hand-made ones.

Every corpus file must replay with zero invariant violations, or fail with a
`CassetteError` whose reason is listed in `EXPECTED_FAILURES`. The facts the replay
reports (interactions, recorded tool calls, invalid ones, HTTP errors) are checked
against a reading of the files done here with PyYAML, gzip, json and jsonschema alone,
so the two readings must agree.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from harness_conformance.cassettes.foreign._load import load_foreign_cassette
from harness_conformance.cassettes.foreign._replay import ForeignReplay, replay_foreign
from harness_conformance.errors import CassetteError
from harness_conformance.events import (
    AssistantChunkEvent,
    FinishChunk,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from harness_conformance.invariants import check_log

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "cassettes"
FILES = sorted(CORPUS.glob("*/*.yaml"))

EXPECTED_FAILURES: dict[str, str] = {}
"""Corpus files that may not replay: file (relative to the corpus) -> words the
`CassetteError` must contain. Empty: every file replays."""


# -- an independent reading of the corpus --------------------------------------------


@dataclass
class Facts:
    """What the file says, read without the code under test."""

    interactions: int = 0
    streamed: bool = False
    tool_calls: int = 0
    invalid_tool_calls: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, argument text) of each call that breaks its recorded schema."""
    error_statuses: list[int] = field(default_factory=list)
    tool_messages: int = 0


def _response_text(response: dict[str, Any]) -> tuple[str, Any]:
    """(kind, value) of a response body: ``json`` with its value or ``sse`` with its text."""
    if "parsed_body" in response:
        return "json", response["parsed_body"]
    raw = response["body"]["string"]
    headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
    if isinstance(raw, bytes):
        if "gzip" in str(headers.get("content-encoding")):
            raw = gzip.decompress(raw)
        raw = raw.decode("utf-8")
    if "event-stream" in str(headers.get("content-type")):
        return "sse", raw
    return "json", json.loads(raw)


def _streamed_calls(text: str) -> list[list[str]]:
    """[name, arguments] of each tool call in an event stream, grouped by index and id."""
    calls: list[list[str]] = []
    open_calls: dict[Any, tuple[str | None, list[str]]] = {}
    for line in text.splitlines():
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        for choice in json.loads(line[5:]).get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            for delta in (choice.get("delta") or {}).get("tool_calls") or []:
                index, call_id = delta.get("index"), delta.get("id")
                known = open_calls.get(index)
                if known is None or (call_id and call_id != known[0]):
                    known = (call_id, ["", ""])
                    open_calls[index] = known
                    calls.append(known[1])
                function = delta.get("function") or {}
                known[1][0] = known[1][0] or function.get("name") or ""
                known[1][1] += function.get("arguments") or ""
    return calls


def _is_invalid(tools: dict[str, Any], name: str, arguments: str) -> bool:
    if name not in tools:
        return True
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        value = arguments
    return not Draft202012Validator(tools[name]).is_valid(value)


@cache
def facts(path: Path) -> Facts:
    document = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    found = Facts()
    for item in document["interactions"]:
        request, response = item["request"], item["response"]
        body = request.get("parsed_body") or json.loads(request["body"])
        found.interactions += 1
        found.streamed = found.streamed or body.get("stream") is True
        found.tool_messages += sum(m.get("role") == "tool" for m in body["messages"])
        if response["status"]["code"] >= 400:
            found.error_statuses.append(response["status"]["code"])
            continue
        tools = {
            t["function"]["name"]: t["function"].get("parameters", {})
            for t in body.get("tools") or []
            if "function" in t
        }
        kind, value = _response_text(response)
        if kind == "sse":
            calls = _streamed_calls(value)
        else:
            message = value["choices"][0]["message"]
            calls = [
                [c["function"]["name"], c["function"].get("arguments") or ""]
                for c in message.get("tool_calls") or []
            ]
        found.tool_calls += len(calls)
        found.invalid_tool_calls += [
            (name, arguments) for name, arguments in calls if _is_invalid(tools, name, arguments)
        ]
    return found


@cache
def replayed(path: Path) -> ForeignReplay | CassetteError:
    try:
        return replay_foreign(path)
    except CassetteError as exc:
        return exc


def _name(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


# -- the corpus ----------------------------------------------------------------------


def test_the_independent_reading_matches_the_corpus_index_totals() -> None:
    every = [facts(path) for path in FILES]
    assert len(FILES) == 61
    assert sum(f.streamed for f in every) == 31
    assert sum(f.tool_calls > 0 for f in every) == 40
    assert sum(f.tool_calls > 0 and f.streamed for f in every) == 18
    assert sum(f.tool_messages > 0 for f in every) == 29


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_corpus_file_replays_without_violations(path: Path) -> None:
    result = replayed(path)
    if isinstance(result, CassetteError):
        reason = EXPECTED_FAILURES.get(_name(path))
        assert reason is not None, f"unexpected failure: {result}"
        assert reason in str(result)
        return
    assert _name(path) not in EXPECTED_FAILURES, "listed as failing, but it replays"
    assert result.violations == ()
    for session in result.sessions:
        assert session.violations == ()
        assert check_log(session.events, "strict") == []
        assert session.unplayed == ()
        assert session.events[0].seq == 0
        assert len(session.turn_reasons) == len(session.prompts)


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_corpus_file_facts_agree_with_an_independent_reading(path: Path) -> None:
    result = replayed(path)
    if isinstance(result, CassetteError):
        pytest.skip(f"listed in EXPECTED_FAILURES: {result}")
    expected = facts(path)
    assert result.interactions == expected.interactions
    assert result.tool_calls == expected.tool_calls
    invalid = [(call.tool, call.arguments) for call in result.invalid_tool_calls]
    assert invalid == expected.invalid_tool_calls
    assert any(i.streamed for i in load_foreign_cassette(path)) == expected.streamed
    played = [e for e in result.events if isinstance(e, ToolCallEvent)]
    assert len(played) == expected.tool_calls
    errors = [
        r["error"]["code"] for s in result.sessions for r in s.turn_reasons if r["kind"] == "error"
    ]
    assert errors == ["INVALID_REQUEST"] * len(expected.error_statuses)


def test_corpus_totals() -> None:
    results = [replayed(path) for path in FILES]
    replays = [r for r in results if isinstance(r, ForeignReplay)]
    assert len(replays) == len(FILES) - len(EXPECTED_FAILURES)
    invalid = sum(len(r.invalid_tool_calls) for r in replays)
    assert invalid == sum(len(facts(path).invalid_tool_calls) for path in FILES)
    assert sum(r.tool_calls for r in replays) == sum(facts(p).tool_calls for p in FILES)


def test_a_tool_call_without_an_id_gets_the_output_sent_back_for_it() -> None:
    result = replayed(
        CORPUS / "pydantic-ai" / "test_compatible_api_with_tool_calls_without_id.yaml"
    )
    assert isinstance(result, ForeignReplay)
    (tool_result,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    block = tool_result.message["content"][0]
    assert block["isError"] is False
    assert not block["content"][0]["text"].startswith("Error:")


# -- hand-made cassettes -------------------------------------------------------------


def _exchange(
    messages: list[dict[str, Any]],
    response: dict[str, Any] | None = None,
    *,
    status: int = 200,
    tools: list[dict[str, Any]] | None = None,
    body: str | None = None,
    content_type: str = "application/json",
    uri: str = "https://api.example.test/v1/chat/completions",
) -> dict[str, Any]:
    request: dict[str, Any] = {"model": "m", "messages": messages}
    if tools:
        request["tools"] = tools
    return {
        "request": {"method": "POST", "uri": uri, "body": json.dumps(request), "headers": {}},
        "response": {
            "status": {"code": status, "message": ""},
            "headers": {"Content-Type": [content_type]},
            "body": {"string": body if body is not None else json.dumps(response)},
        },
    }


def _text(text: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": text}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def _calls(*calls: tuple[str, str, str]) -> dict[str, Any]:
    wire = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
    ]
    message = {"role": "assistant", "content": None, "tool_calls": wire}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


def _tool(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": schema}}


def _write(tmp_path: Path, *interactions: dict[str, Any]) -> Path:
    path = tmp_path / "cassette.yaml"
    path.write_text(yaml.safe_dump({"interactions": list(interactions), "version": 1}))
    return path


def _finish_kinds(result: ForeignReplay) -> Iterator[str]:
    for event in result.events:
        if isinstance(event, AssistantChunkEvent) and isinstance(event.chunk, FinishChunk):
            yield event.chunk.reason["kind"]


USER = {"role": "user", "content": "hi"}
POINT = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}


@pytest.mark.parametrize("failures", [1, 4])
def test_a_recorded_5xx_followed_by_the_same_request_is_a_retry(
    tmp_path: Path, failures: int
) -> None:
    error = _exchange([USER], {"error": {"message": "overloaded"}}, status=503)
    path = _write(tmp_path, *[error] * failures, _exchange([USER], _text("ok")))
    result = replay_foreign(path)
    (session,) = result.sessions
    assert session.turn_reasons == ({"kind": "completed"},)
    assert list(_finish_kinds(result)) == ["error"] * failures + ["stop"]
    assert session.unplayed == ()
    assert result.violations == ()


def test_a_5xx_the_recording_did_not_retry_ends_the_turn_with_its_code(tmp_path: Path) -> None:
    error = {"error": {"message": "overloaded"}}
    path = _write(tmp_path, _exchange([USER], error, status=503))
    (session,) = replay_foreign(path).sessions
    (reason,) = session.turn_reasons
    assert reason["kind"] == "error"
    assert reason["error"]["code"] == "SERVER"
    assert session.ended_mid_turn is False
    assert session.unplayed == ()


def test_tool_outputs_come_from_the_next_request(tmp_path: Path) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "point", "arguments": '{"x":1}'}}
    follow: list[dict[str, Any]] = [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "the recorded output"},
    ]
    tools = [_tool("point", POINT)]
    path = _write(
        tmp_path,
        _exchange([USER], _calls(("c1", "point", '{"x":1}')), tools=tools),
        _exchange(follow, _text("done"), tools=tools),
    )
    result = replay_foreign(path)
    (tool_result,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    assert tool_result.message["content"][0]["content"][0]["text"] == "the recorded output"
    assert result.sessions[0].turn_reasons == ({"kind": "completed"},)
    assert result.invalid_tool_calls == ()


def test_a_session_that_ends_on_tool_calls_stops_after_them(tmp_path: Path) -> None:
    tools = [_tool("point", POINT)]
    path = _write(tmp_path, _exchange([USER], _calls(("c1", "point", '{"x":1}')), tools=tools))
    result = replay_foreign(path)
    (session,) = result.sessions
    assert session.ended_mid_turn is True
    assert session.turn_reasons == ({"kind": "aborted", "reason": {"kind": "end-of-recording"}},)
    assert [e.type for e in session.events].count("step/start") == 1
    (tool_result,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    text = tool_result.message["content"][0]["content"][0]["text"]
    assert "the recording has no output for tool call 'c1'" in text
    assert check_log(session.events, "strict") == []
    assert isinstance(session.events[-1], TurnEndEvent)


def test_invalid_and_unknown_tool_calls_are_reported(tmp_path: Path) -> None:
    tools = [_tool("point", POINT)]
    response = _calls(("c1", "point", '{"x":"one"}'), ("c2", "nowhere", "{}"))
    result = replay_foreign(_write(tmp_path, _exchange([USER], response, tools=tools)))
    first, second = result.invalid_tool_calls
    assert (first.tool, first.call_id, first.arguments) == ("point", "c1", '{"x":"one"}')
    assert first.messages == ('"x" must be an integer',)
    assert second.messages == ('the request declares no tool named "nowhere"',)
    assert result.tool_calls == 2


def test_a_schema_that_does_not_import_is_registered_raw_and_not_validated(
    tmp_path: Path,
) -> None:
    schema = {"type": "object", "not": {"required": ["x"]}}
    response = _calls(("c1", "odd", '{"x": 1}'))
    result = replay_foreign(
        _write(tmp_path, _exchange([USER], response, tools=[_tool("odd", schema)]))
    )
    assert result.raw_tools == ("odd",)
    assert result.invalid_tool_calls == ()
    assert result.tool_calls == 1


def test_a_new_user_message_is_a_new_turn_and_a_repeat_is_a_new_session(tmp_path: Path) -> None:
    second = [USER, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "more"}]
    path = _write(
        tmp_path,
        _exchange([{"role": "system", "content": "be brief"}, USER], _text("a1")),
        _exchange([{"role": "system", "content": "be brief"}, *second], _text("a2")),
        _exchange([USER], _text("again")),
    )
    result = replay_foreign(path)
    first, other = result.sessions
    assert first.prompts == ("hi", "more")
    assert first.system == "be brief"
    assert first.turn_reasons == ({"kind": "completed"}, {"kind": "completed"})
    assert other.prompts == ("hi",)
    assert other.events[0].seq == 0
    assert first.model == "m"
    assert first.base_url == "https://api.example.test/v1"


def test_stream_errors_and_unreadable_bodies_become_provider_error_turns(tmp_path: Path) -> None:
    stream = 'data: {"error": {"message": "rate limit reached"}}\n\n'
    path = _write(
        tmp_path,
        _exchange([USER], body=stream, content_type="text/event-stream"),
        _exchange([{"role": "user", "content": "other"}], body="<html>", content_type="text/html"),
    )
    codes = [
        reason["error"]["code"]
        for session in replay_foreign(path).sessions
        for reason in session.turn_reasons
    ]
    assert codes == ["RATE_LIMIT", "MALFORMED_RESPONSE"]


def test_requests_that_are_no_model_call_are_skipped(tmp_path: Path) -> None:
    embedding = _exchange([], {"data": []}, uri="https://api.example.test/v1/embeddings")
    embedding["request"]["body"] = json.dumps({"input": "x", "model": "e"})
    listing = _exchange([], {"data": []}, uri="https://api.example.test/v1/models")
    listing["request"]["method"] = "GET"
    path = _write(tmp_path, embedding, listing, _exchange([USER], _text("ok")))
    result = replay_foreign(path)
    assert result.skipped == (0, 1)
    assert result.sessions[0].interactions == (2,)
    assert result.sessions[0].wire == "openai-chat"


def test_a_model_call_in_an_unknown_format_refuses_the_whole_cassette(tmp_path: Path) -> None:
    cohere = _exchange([], {"text": "hi"}, uri="https://api.cohere.test/v2/generate")
    cohere["request"]["body"] = json.dumps({"model": "c", "prompt": "hi"})
    path = _write(tmp_path, _exchange([USER], _text("ok")), cohere)
    with pytest.raises(CassetteError) as caught:
        replay_foreign(path)
    assert caught.value.code == "CASSETTE_UNKNOWN_FORMAT"
    assert caught.value.path == str(path)
    message = str(caught.value)
    assert "interaction 1 (POST https://api.cohere.test/v2/generate)" in message
    assert "record the session again through a supported format" in message


def test_the_seed_profile_and_a_corrupt_file(tmp_path: Path) -> None:
    path = _write(tmp_path, _exchange([USER], _text("ok")))
    assert replay_foreign(path, profile="seed").violations == ()
    path.write_text("interactions: [\n")
    with pytest.raises(CassetteError) as caught:
        replay_foreign(path)
    assert caught.value.code == "CASSETTE_CORRUPT"
    assert str(path) in str(caught.value)

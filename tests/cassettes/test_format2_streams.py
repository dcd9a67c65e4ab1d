"""Cassette format 2: an event stream is stored as its own text, one line of the file
per line of the stream, and comes back byte for byte whatever the stream holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from harness_conformance.cassettes import (
    FORMAT_VERSION,
    deserialize,
    find_secrets,
    load_document,
    serialize,
    sse_items,
)
from harness_conformance.errors import CassetteError
from harness_conformance.strategies import json_values

SSE = "text/event-stream; charset=utf-8"
LOOPBACK = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "loopback"


def cassette_of(body: str | bytes) -> dict[str, Any]:
    """What vcrpy hands the serializer for one streamed reply."""
    request = {
        "method": "POST",
        "uri": "https://api.deepseek.com/chat/completions",
        "body": '{"model":"deepseek-chat","stream":true}',
        "headers": {"Content-Type": ["application/json"]},
    }
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Type": [SSE]},
        "body": {"string": body},
    }
    return {"version": 1, "interactions": [{"request": request, "response": response}]}


def stored_and_loaded(body: str) -> tuple[str, Any, Any]:
    """``(file text, stored body, loaded body)`` of a stream written and read again."""
    text = serialize(cassette_of(body))
    stored = yaml.safe_load(text)["interactions"][0]["response"]["body"]
    loaded = deserialize(text)["interactions"][0]["response"]["body"]["string"]
    return text, stored, loaded


QUIRKS = {
    "openai": 'data: {"choices":[{"delta":{"content":"Hi, I\'m"}}]}\n\ndata: [DONE]\n\n',
    "comment and event lines": ": keep-alive\n\nevent: ping\ndata: {}\n\nid: 7\nretry: 10\n\n",
    "not JSON": "data: {broken\n\ndata: NaN\n\ndata: just text\n\n",
    "no space after the colon": 'data:{"a":1}\n\ndata:[DONE]\n\n',
    "odd spacing": 'data:  { "a" : 1 }\n\ndata: {"a": 1, "b": [1, 2]}\n\n',
    "pretty JSON across lines": 'data: {\ndata:   "a": 1\ndata: }\n\n',
    "escaped and raw unicode": 'data: {"x":"\\u00e9"}\n\ndata: {"x":"été ☃ 😀"}\n\n',
    "no final line break": 'data: {"a":1}\n\ndata: [DONE]',
    "starts with blank lines": '\n\n\ndata: {"a":1}\n\n',
    "leading spaces": '  data: {"a":1}\n\n',
    "many blank lines": 'data: {"a":1}\n\n\n\n\ndata: [DONE]\n\n\n',
    "empty": "",
    "crlf": 'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n',
    "mixed line breaks": 'data: {"a":1}\r\n\r\ndata: {"b":2}\n\ndata: [DONE]\r\r',
    "trailing space": 'data: {"a":1} \n\n: ping \n\n',
    "tab": 'data:\t{"a":1}\n\n',
    "line separator": 'data: {"x":"a\u2028b\u2029c"}\n\n',
    "next line and bom": 'data: {"x":"a\x85b\ufeffc"}\n\n',
    "control characters": 'data: {"x":1}\x00\x07\x1b\n\n',
    "yaml look-alikes": "data: ---\n\ndata: ...\n\n# not a comment\n\ndata: &a *b !!c |\n\n",
}


@pytest.mark.parametrize("body", QUIRKS.values(), ids=list(QUIRKS))
def test_every_stream_quirk_comes_back_byte_for_byte(body: str) -> None:
    _, _, loaded = stored_and_loaded(body)
    assert loaded == body
    _, _, from_bytes = stored_and_loaded(body.encode("utf-8"))  # type: ignore[arg-type]
    assert from_bytes in (body, body.encode("utf-8"))


sse_lines = st.one_of(
    st.builds(lambda v: "data: " + json.dumps(v, separators=(",", ":")), json_values()),
    st.builds(lambda v: "data: " + json.dumps(v, ensure_ascii=False), json_values(max_leaves=3)),
    st.sampled_from(["data: [DONE]", ": keep-alive", "event: message", "id: 7", "data: {x"]),
    st.text(max_size=40),
)
line_ends = st.sampled_from(["\n\n", "\n", "\r\n", "\r\n\r\n", "\r", "\n\n\n", ""])
sse_bodies = st.lists(st.tuples(sse_lines, line_ends), max_size=12).map(
    lambda pairs: "".join(line + end for line, end in pairs)
)


@pytest.mark.slow
@given(sse_bodies)
@example("data: x \n\n")
@example("a\n \nb\n")
def test_any_stream_survives_format_2(body: str) -> None:
    _, _, loaded = stored_and_loaded(body)
    assert loaded == body


def test_a_stream_is_a_literal_block_with_one_line_per_event() -> None:
    body = QUIRKS["openai"]
    text, stored, _ = stored_and_loaded(body)
    assert stored == {"sse": body}
    lines = text.splitlines()
    opening = lines.index("      sse: |+")
    assert lines[opening + 1] == '        data: {"choices":[{"delta":{"content":"Hi, I\'m"}}]}'
    assert lines[opening + 2] == ""
    assert lines[opening + 3] == "        data: [DONE]"
    assert yaml.safe_load(text)["harness_conformance"]["format"] == FORMAT_VERSION == 2


def test_a_crlf_stream_is_a_block_with_its_line_break_named() -> None:
    text, stored, loaded = stored_and_loaded(QUIRKS["crlf"])
    assert stored == {"sse": 'data: {"a":1}\n\ndata: [DONE]\n\n', "line_break": "\r\n"}
    assert "\r" not in text
    assert loaded == QUIRKS["crlf"]


@pytest.mark.parametrize(
    "name", ["mixed line breaks", "trailing space", "tab", "line separator", "next line and bom"]
)
def test_a_stream_no_block_can_hold_is_a_list_of_quoted_lines(name: str) -> None:
    body = QUIRKS[name]
    text, stored, loaded = stored_and_loaded(body)
    assert loaded == body
    assert list(stored) == ["sse"]
    assert isinstance(stored["sse"], list)
    assert "".join(stored["sse"]) == body
    assert all(line.rstrip("\r\n") for line in stored["sse"]), "one line of the stream each"
    assert len(text.splitlines()) == len(serialize(cassette_of("")).splitlines()) + len(
        stored["sse"]
    ), "one line of the file each"


def test_the_stored_text_splits_into_the_events_format_1_stored() -> None:
    body = QUIRKS["comment and event lines"] + 'data:{"id":1}\n\ndata: [DONE]\n\n'
    _, stored, _ = stored_and_loaded(body)
    items, style, end = sse_items(stored["sse"]) or ([], "", "")
    assert items == [
        {"comment": " keep-alive"},
        {"raw": "event: ping", "end": "\n"},
        {"data": {}},
        {"raw": "id: 7", "end": "\n"},
        {"raw": "retry: 10"},
        {"data": {"id": 1}, "prefix": "data:"},
        {"done": True},
    ]
    assert (style, end) == ("compact", "\n\n")


def test_the_shipped_loopback_cassettes_are_format_2_and_store_streams_as_text() -> None:
    paths = sorted(LOOPBACK.glob("*.yaml"))
    assert len(paths) == 10
    streams = 0
    for path in paths:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert document["harness_conformance"]["format"] == 2, path.name
        for interaction in document["interactions"]:
            body = interaction["response"]["body"]
            if body and "sse" in body:
                assert isinstance(body["sse"], str), path.name
                streams += 1
        load_document(path.read_text(encoding="utf-8"), path=str(path))
    assert streams >= 10


# -- damaged format-2 streams ------------------------------------------------------------


def corrupt(text: str) -> str:
    with pytest.raises(CassetteError) as caught:
        load_document(text, path="bad.yaml")
    assert caught.value.code == "CASSETTE_CORRUPT"
    return caught.value.message


GOOD = serialize(cassette_of('data: {"a":1}\n\ndata: [DONE]\n\n'))
LISTED = serialize(cassette_of('data: {"a":1} \n\ndata: [DONE]\n\n'))


def test_a_format_2_stream_of_parsed_events_is_refused() -> None:
    text = GOOD.replace("      sse: |+\n", "      sse:\n      - done: true\n      x: |+\n")
    message = corrupt(text.replace("      x: |+\n", "      json_style: compact\n      x: |+\n"))
    assert "unknown key 'json_style' in a sse body" in message
    message = corrupt(LISTED.replace('      - "data: [DONE]\\n\\n"\n', "      - done: true\n"))
    assert "sse[1] must be a string, not dict" in message
    assert "bad.yaml is damaged at line" in message


def test_a_bad_line_break_is_refused() -> None:
    text = GOOD.replace("      sse: |+\n", '      line_break: "\\r"\n      sse: |+\n')
    assert "line_break must be one of" in corrupt(text)
    listed = LISTED.replace("      sse:\n", '      line_break: "\\r\\n"\n      sse:\n')
    assert "line_break belongs to an sse body stored as text" in corrupt(listed)


def test_a_newer_format_is_refused_by_name() -> None:
    message = corrupt(GOOD.replace("  format: 2\n", "  format: 3\n"))
    assert "it is in cassette format 3" in message
    assert "reads format 2 at most" in message
    assert "Upgrade harness-conformance" in message


def test_an_aliased_stream_counts_against_the_alias_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    block = "data: " + json.dumps({"x": "y" * 5000}) + "\n\n"
    text = serialize(cassette_of(block))
    anchored = text.replace("      sse: |+\n", "      sse: &s |+\n", 1)
    twice = anchored.replace("\nversion: 1\n", "\nextra: [*s, *s, *s]\nversion: 1\n", 1)
    assert twice != anchored
    assert load_document(twice)["interactions"][0]["response"]["body"]["string"] == block
    monkeypatch.setenv("HARNESS_CONFORMANCE_YAML_ALIAS_BUDGET", "10000")
    assert "alias budget of 10,000" in corrupt(twice)


def test_the_scanner_names_the_line_of_a_key_cut_across_events_in_a_block() -> None:
    key = "sk-" + "proj0123456789abcdefABCDEF"
    pieces = [key[:6], key[6:15], key[15:]]
    body = "".join(
        "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": piece}}]}) + "\n\n"
        for piece in ["my key is ", *pieces]
    )
    text = serialize(cassette_of(body))
    [finding] = find_secrets(text)
    assert finding.kind == "an OpenAI-style API key (sk-...) split across 3 stream events"
    assert finding.field == "interactions[0].response.body.sse[1].data.choices[0].delta.content"
    line = text.splitlines()[finding.line - 1]
    assert line.strip().startswith("data: ")
    assert json.dumps(pieces[0]) in line
    assert finding.column == len(line) - len(line.lstrip()) + 1

"""Cassettes of format 1 (event streams stored as lists of parsed events) still load,
byte for byte, through every loader: the serializer, the persister, the foreign reader
the ``replay`` command uses, and the secret scanner.

``format1/`` holds files written by the format-1 serializer: one with a stream of every
kind of line format 1 knew (comments, raw lines, ``data:`` without a space, JSON in
other styles, odd endings, CRLF, a missing last line break, trailing spaces), and the
loopback recording ``parallel_tool_calls`` as it shipped in format 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_conformance.cassettes import (
    CassettePersister,
    find_secrets,
    load_document,
    load_foreign_cassette,
    replay_foreign,
    serialize,
    serializer,
)

HERE = Path(__file__).resolve().parent / "format1"
QUIRKS = HERE / "stream_quirks.yaml"
PARALLEL = HERE / "parallel_tool_calls.yaml"
SHIPPED = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "loopback"

BODIES = {
    "openai": (
        'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hi, I\'m here"}}]}\n\n'
        'data: {"id":"c1","choices":[{"index":0,"delta":{"content":" été ☃"}}]}\n\n'
        "data: [DONE]\n\n"
    ),
    "quirks": (
        ": keep-alive\n\n"
        "event: message\n"
        'data:{"a":1}\n\n'
        'data: {"b": 2, "c": [1, 2]}\n\n'
        "data: {broken json\n\n"
        'data: {"x":"\\u00e9"}\n\n'
        'data: "just a string"\n'
        "id: 7\n\n\n"
        "retry: 100\n"
        "data: [DONE]\n\n"
    ),
    "crlf": 'data: {"a":1}\r\n\r\ndata: {"b":2}\r\n\r\ndata: [DONE]\r\n\r\n',
    "no_final_break": 'data: {"a":1}\n\ndata: [DONE]',
    "trailing_space": 'data: {"a":1} \n\n: ping \n\ndata: [DONE]\n\n',
}


def _case(uri: str) -> str:
    return uri.rsplit("case=", 1)[1]


def test_the_files_are_format_1_with_streams_of_parsed_events() -> None:
    for path in (QUIRKS, PARALLEL):
        text = path.read_text(encoding="utf-8")
        assert "\n  format: 1\n" in text
        assert "      sse:\n      - data:\n" in text


def test_every_stream_of_a_format_1_file_loads_byte_for_byte() -> None:
    loaded = load_document(QUIRKS.read_text(encoding="utf-8"), path=str(QUIRKS))
    bodies = {
        _case(item["request"]["uri"]): item["response"]["body"]["string"]
        for item in loaded["interactions"]
    }
    assert bodies == BODIES


def test_the_persister_and_the_foreign_reader_load_format_1_too() -> None:
    requests, responses = CassettePersister().load_cassette(QUIRKS, serializer)
    got = {
        _case(r.uri): resp["body"]["string"] for r, resp in zip(requests, responses, strict=True)
    }
    assert got == {case: body.encode("utf-8") for case, body in BODIES.items()}
    interactions = load_foreign_cassette(QUIRKS)
    assert [i.body_kind for i in interactions] == ["sse"] * len(BODIES)
    assert interactions[1].stream_done
    assert interactions[1].body[:3] == ({"a": 1}, {"b": 2, "c": [1, 2]}, "{broken json")


def test_a_format_1_file_saved_again_is_format_2_with_the_same_bodies() -> None:
    old = load_document(QUIRKS.read_text(encoding="utf-8"))
    text = serialize(old)
    assert "\n  format: 2\n" in text
    new = load_document(text)
    assert [i["response"]["body"] for i in new["interactions"]] == [
        i["response"]["body"] for i in old["interactions"]
    ]
    assert [i["request"]["body"] for i in new["interactions"]] == [
        i["request"]["body"] for i in old["interactions"]
    ]


def test_the_format_1_recording_and_its_format_2_copy_hold_the_same_traffic() -> None:
    old = load_document(PARALLEL.read_text(encoding="utf-8"))["interactions"]
    new = load_document((SHIPPED / PARALLEL.name).read_text(encoding="utf-8"))["interactions"]
    assert [(i["request"], i["response"]) for i in old] == [
        (i["request"], i["response"]) for i in new
    ]
    old_replay, new_replay = replay_foreign(PARALLEL), replay_foreign(SHIPPED / PARALLEL.name)
    assert old_replay.violations == new_replay.violations == ()
    assert old_replay.tool_calls == new_replay.tool_calls == 3
    assert [type(e).__name__ for e in old_replay.events] == [
        type(e).__name__ for e in new_replay.events
    ]


@pytest.mark.parametrize("path", [QUIRKS, PARALLEL], ids=lambda p: p.name)
def test_the_scanner_reads_format_1_files(path: Path) -> None:
    assert find_secrets(path.read_text(encoding="utf-8")) == []


def test_the_scanner_finds_a_key_cut_across_format_1_events() -> None:
    text = PARALLEL.read_text(encoding="utf-8")
    # The first reply's deltas carry content twice: null, then '' with the finish reason.
    holders = ["              content: null\n", "              content: ''\n"]
    key = "sk-" + "proj0123456789abcdefABCDEF"
    cut = text.replace(holders[0], f"              content: 'my key: {key[:8]}'\n", 1)
    cut = cut.replace(holders[1], f"              content: {key[8:]}\n", 1)
    assert cut.count(key[8:]) == 1
    findings = [f for f in find_secrets(cut) if "split" in f.kind]
    assert [f.kind for f in findings] == [
        "an OpenAI-style API key (sk-...) split across 2 stream events"
    ]
    assert findings[0].field.startswith("interactions[0].response.body.sse[0].data.choices[0]")
    assert cut.splitlines()[findings[0].line - 1].lstrip().startswith("- data:")

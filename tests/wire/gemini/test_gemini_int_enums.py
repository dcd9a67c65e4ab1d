"""Vertex AI replies with integer enums (``$alt=json;enum-encoding=int``) read as the
same replies with the names: each number as the member it stands for in the Vertex AI
v1 protos, and a number that names no member as MALFORMED_RESPONSE naming the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.cassettes.foreign import load_foreign_cassette, replay_foreign
from harness_conformance.errors import LlmError
from harness_conformance.events import Chunk, FinishChunk
from harness_conformance.wire.gemini import GEMINI
from harness_conformance.wire.gemini._enums import (
    BLOCKED_REASON,
    BY_FIELD,
    FINISH_REASON,
    MODALITY,
    TRAFFIC_TYPE,
    enum_name,
)
from harness_conformance.wire.gemini._reader import FILTER_REASONS, GeminiReader

VERTEX = (
    "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1"
    "/publishers/google/models/gemini-2.5-flash"
)
ENUMS_AS_INT = "%24alt=json%3Benum-encoding%3Dint"


def candidate(*parts: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"content": {"role": "model", "parts": list(parts)}, **extra}


def outcome(*events: object) -> tuple[str, object]:
    """What a fresh reader makes of ``events``: its chunks, or its failure's code and
    message, so two readings compare whole."""
    reader = GeminiReader(request_id="req-1")
    try:
        out: list[Chunk] = []
        for payload in events:
            out += reader.feed(payload)
        return "chunks", out + reader.finish()
    except LlmError as error:
        return error.failure.code, error.failure.message


def malformed_message(*events: object) -> str:
    code, message = outcome(*events)
    assert code == "MALFORMED_RESPONSE"
    assert isinstance(message, str)
    assert "cannot be read" in message
    return message


# -- the tables -----------------------------------------------------------------------


@pytest.mark.parametrize("field", sorted(BY_FIELD))
def test_each_table_numbers_its_members_from_zero_unspecified(field: str) -> None:
    table = BY_FIELD[field]
    assert sorted(table) == list(range(len(table)))
    assert len(set(table.values())) == len(table)
    assert table[0].endswith("_UNSPECIFIED")


def test_vertex_numbers_where_the_gemini_api_numbers_differently() -> None:
    # Vertex AI has MODEL_ARMOR at 10 and the image reasons after it.
    assert [FINISH_REASON[n] for n in (5, 6, 9, 10, 11, 15)] == [
        "OTHER",
        "BLOCKLIST",
        "MALFORMED_FUNCTION_CALL",
        "MODEL_ARMOR",
        "IMAGE_SAFETY",
        "UNEXPECTED_TOOL_CALL",
    ]
    assert "LANGUAGE" not in FINISH_REASON.values()
    assert TRAFFIC_TYPE[2] == "PROVISIONED_THROUGHPUT"
    assert BLOCKED_REASON[7] == "JAILBREAK"


def test_a_number_is_read_whatever_its_json_type() -> None:
    assert enum_name("finishReason", 1) == "STOP"
    assert enum_name("finishReason", 1.0) == "STOP"
    assert enum_name("finishReason", 1.5) is None
    assert enum_name("modality", 99) is None
    assert enum_name("trafficType", -1) is None


# -- each number reads as its name ------------------------------------------------------


@pytest.mark.parametrize(("number", "name"), sorted(FINISH_REASON.items()))
def test_each_finish_reason_number_reads_as_its_name(number: int, name: str) -> None:
    def reply(reason: object) -> list[dict[str, Any]]:
        return [
            {"candidates": [candidate({"text": "Hel"})]},
            {"candidates": [candidate({"text": "lo"}, finishReason=reason)]},
        ]

    assert outcome(*reply(number)) == outcome(*reply(name))


def test_integer_finish_reasons_keep_their_meaning() -> None:
    calls = [{"functionCall": {"name": "f", "args": {}}}]
    code, out = outcome({"candidates": [candidate(*calls, finishReason=1)]})
    assert code == "chunks"
    assert isinstance(out, list)
    assert out[-1] == FinishChunk(reason={"kind": "tool-calls"})
    code, out = outcome({"candidates": [candidate(finishReason=2)]})
    assert isinstance(out, list)
    assert out[-1] == FinishChunk(reason={"kind": "max-tokens"})
    assert outcome({"candidates": [candidate({"text": "a"}, finishReason=10)]}) == (
        "CONTENT_FILTER",
        "the provider's filter stopped the reply (MODEL_ARMOR)",
    )
    assert outcome({"candidates": [candidate(finishReason=15)]})[0] == "MALFORMED_RESPONSE"
    assert {FINISH_REASON[n] for n in (3, 4, 6, 7, 8, 10, 11, 12, 13)} <= FILTER_REASONS


@pytest.mark.parametrize(("number", "name"), sorted(BLOCKED_REASON.items()))
def test_each_block_reason_number_reads_as_its_name(number: int, name: str) -> None:
    assert outcome({"promptFeedback": {"blockReason": number}}) == outcome(
        {"promptFeedback": {"blockReason": name}}
    )


def test_an_integer_block_reason_names_the_reason() -> None:
    assert outcome({"promptFeedback": {"blockReason": 7}}) == (
        "INVALID_REQUEST",
        "the provider blocked the prompt (JAILBREAK)",
    )


@pytest.mark.parametrize(("number", "name"), sorted(TRAFFIC_TYPE.items()))
def test_the_traffic_type_is_kept_by_name(number: int, name: str) -> None:
    for value in (number, name):
        reader = GeminiReader(request_id=None)
        reader.feed({"usageMetadata": {"promptTokenCount": 1, "trafficType": value}})
        assert reader.traffic_type == name


def test_every_token_details_modality_and_safety_rating_reads() -> None:
    details = [{"modality": number, "tokenCount": 1} for number in MODALITY]
    usage: dict[str, Any] = {
        "promptTokenCount": 6,
        "candidatesTokenCount": 2,
        "promptTokensDetails": details,
        "cacheTokensDetails": details[:1],
        "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 2}],
        "toolUsePromptTokensDetails": [{"modality": 1.0, "tokenCount": 0}],
        "trafficType": 1,
    }
    ratings = [
        {"category": number, "probability": 1, "severity": 1, "probabilityScore": 0.1}
        for number in BY_FIELD["category"]
    ]
    named = [{"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"}]
    reply: dict[str, Any] = {
        "candidates": [candidate({"text": "hi"}, finishReason=1, safetyRatings=ratings)],
        "promptFeedback": {"safetyRatings": named},
        "usageMetadata": usage,
    }
    code, out = outcome(reply)
    assert code == "chunks"
    assert out == outcome({**reply, "usageMetadata": {**usage, "trafficType": "ON_DEMAND"}})[1]


# -- numbers that name no member ----------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "named"),
    [
        ({"candidates": [candidate({"text": "a"}, finishReason=17)]}, "finishReason number"),
        ({"candidates": [candidate(finishReason=-1)]}, "finishReason number"),
        ({"candidates": [candidate(finishReason=1.5)]}, "finishReason number"),
        ({"promptFeedback": {"blockReason": 8}}, "blockReason number"),
        ({"usageMetadata": {"trafficType": 5}}, "trafficType number"),
        (
            {"usageMetadata": {"promptTokensDetails": [{"modality": 6}]}},
            "promptTokensDetails[0].modality number",
        ),
        (
            {"usageMetadata": {"candidatesTokensDetails": [{"modality": 1}, {"modality": 9}]}},
            "candidatesTokensDetails[1].modality number",
        ),
        (
            {"usageMetadata": {"cacheTokensDetails": [{"modality": 2**70}]}},
            "cacheTokensDetails[0].modality number",
        ),
        (
            {"candidates": [candidate(safetyRatings=[{"category": 11}])]},
            "candidate.safetyRatings[0].category number",
        ),
        (
            {"promptFeedback": {"safetyRatings": [{"probability": 5}]}},
            "promptFeedback.safetyRatings[0].probability number",
        ),
        (
            {"candidates": [candidate(safetyRatings=[{"severity": 9}])]},
            "candidate.safetyRatings[0].severity number",
        ),
    ],
)
def test_a_number_that_names_no_member_is_malformed_naming_field_and_value(
    event: dict[str, Any], named: str
) -> None:
    message = malformed_message(event, {"candidates": [candidate({"text": "a"}, finishReason=1)]})
    assert f"a {named} that names no member" in message
    number = json.dumps(event).split(":")[-1].strip(" }]")
    assert message.endswith(number)


@pytest.mark.parametrize(
    ("event", "named"),
    [
        ({"candidates": [candidate(finishReason=True)]}, "finishReason"),
        ({"promptFeedback": {"blockReason": {"n": 1}}}, "blockReason"),
        ({"usageMetadata": {"trafficType": [1]}}, "trafficType"),
        ({"usageMetadata": {"promptTokensDetails": [{"modality": False}]}}, "modality"),
        ({"usageMetadata": {"promptTokensDetails": {"modality": 1}}}, "promptTokensDetails"),
        ({"usageMetadata": {"promptTokensDetails": [1]}}, "promptTokensDetails entry"),
        ({"candidates": [candidate(safetyRatings={"category": 1})]}, "safetyRatings"),
        ({"promptFeedback": {"safetyRatings": ["HIGH"]}}, "safetyRatings entry"),
    ],
)
def test_an_enum_of_the_wrong_type_is_malformed(event: dict[str, Any], named: str) -> None:
    assert named in malformed_message(event)


# -- whole Vertex AI replies ---------------------------------------------------------------


def _vertex_reply(*parts: dict[str, Any], finish: object) -> dict[str, Any]:
    """A ``generateContent`` body as Vertex AI writes it for a client that asked for
    integer enums."""
    return {
        "candidates": [candidate(*parts, finishReason=finish, avgLogprobs=-0.01)],
        "usageMetadata": {
            "promptTokenCount": 72,
            "candidatesTokenCount": 16,
            "totalTokenCount": 88,
            "trafficType": 1,
            "promptTokensDetails": [{"modality": 1, "tokenCount": 72}],
            "candidatesTokensDetails": [{"modality": 1, "tokenCount": 16}],
        },
        "modelVersion": "gemini-2.5-flash",
        "createTime": "2026-12-01T10:00:00.000000Z",
        "responseId": "r-int-1",
    }


def test_a_non_streamed_vertex_body_with_integer_enums_reads_as_its_named_form() -> None:
    calls = (
        {"functionCall": {"name": "get_weather", "args": {"city": "Delhi"}}},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
    )
    numbered = GEMINI.as_events(_vertex_reply(*calls, finish=1), request_id=None)
    named = _vertex_reply(*calls, finish="STOP")
    named["usageMetadata"]["trafficType"] = "ON_DEMAND"
    code, out = outcome(*numbered)
    assert code == "chunks"
    assert isinstance(out, list)
    assert out[-1] == FinishChunk(reason={"kind": "tool-calls"})
    assert out == outcome(named)[1]


def _sse_cassette(tmp_path: Path, events: list[dict[str, Any]]) -> Path:
    body = "".join(f"data: {json.dumps(event)}\r\n\r\n" for event in events)
    cassette = {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": f"{VERTEX}:streamGenerateContent?alt=sse&{ENUMS_AS_INT}",
                    "body": json.dumps(
                        {"contents": [{"role": "user", "parts": [{"text": "Hello?"}]}]}
                    ),
                    "headers": {"Content-Type": ["application/json"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"Content-Type": ["text/event-stream"]},
                    "body": {"string": body},
                },
            }
        ],
    }
    path = tmp_path / "vertex_int_enums.json"
    path.write_text(json.dumps(cassette), "utf-8")
    return path


def _streamed(last_finish: object) -> list[dict[str, Any]]:
    first = _vertex_reply({"text": "Hel"}, finish=None)
    del first["candidates"][0]["finishReason"]
    return [first, _vertex_reply({"text": "lo"}, finish=last_finish)]


def test_a_streamed_vertex_reply_with_integer_enums_reads_and_replays(tmp_path: Path) -> None:
    path = _sse_cassette(tmp_path, _streamed(1))
    [interaction] = load_foreign_cassette(path)
    assert interaction.body_kind == "sse"
    code, out = outcome(*interaction.body)
    assert code == "chunks"
    assert out == outcome(*_streamed("STOP"))[1]
    replay = replay_foreign(path, profile="strict")
    assert replay.violations == ()
    assert [session.wire for session in replay.sessions] == ["gemini"]
    assert [r["kind"] for s in replay.sessions for r in s.turn_reasons] == ["completed"]


def test_a_streamed_reply_ending_on_an_unknown_number_fails_naming_it(tmp_path: Path) -> None:
    path = _sse_cassette(tmp_path, _streamed(42))
    [interaction] = load_foreign_cassette(path)
    message = malformed_message(*interaction.body)
    assert message.endswith("a finishReason number that names no member: 42")
    replay = replay_foreign(path, profile="strict")
    assert replay.violations == ()
    [reason] = [r for s in replay.sessions for r in s.turn_reasons]
    assert reason["kind"] == "error"
    assert reason["error"]["code"] == "MALFORMED_RESPONSE"

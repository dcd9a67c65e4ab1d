"""Request matching in replay: normalised JSON bodies, readable misses, unplayed
interactions. Recordings are made over real loopback sockets with the openai SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
import vcr  # type: ignore[import-untyped]
from openai import OpenAI
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes._match import (
    DEFAULT_VOLATILE,
    MATCH_ON,
    canonical_body,
    json_body,
    json_body_matcher,
    parse_volatile_path,
    register_json_body,
)
from harness_conformance.cassettes._modes import check_reason, use_cassette
from harness_conformance.errors import CassetteError
from harness_conformance.server import LoopbackModelServer, TextResponse

KEY = "sk-loopback-test"
URL = "http://127.0.0.1:8000/v1/chat/completions"


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def ask(base_url: str, messages: list[dict[str, Any]], **body: Any) -> str:
    """One non-streamed chat completion through the openai SDK."""
    with OpenAI(api_key=KEY, base_url=base_url, max_retries=0, timeout=10) as client:
        reply = client.chat.completions.create(model="m", messages=cast(Any, messages), **body)
    return str(reply.choices[0].message.content)


def record(path: Path, *calls: tuple[list[dict[str, Any]], str], **body: Any) -> str:
    """Record one request per ``(messages, reply)`` into ``path``; return the base URL,
    whose server is stopped again when this returns."""
    script = [TextResponse(reply, finish_reason="stop") for _messages, reply in calls]
    with LoopbackModelServer(script) as server, use_cassette(vcr.VCR(), path, mode="once"):
        base_url = server.base_url
        for messages, reply in calls:
            assert ask(base_url, messages, **body) == reply
    server.assert_consumed()
    return base_url


def replay(path: Path, base_url: str, *calls: list[dict[str, Any]], **options: Any) -> list[str]:
    """Replay one request per messages list under the cassette at ``path``."""
    with use_cassette(vcr.VCR(), path, **options):
        return [ask(base_url, messages) for messages in calls]


def replay_swallowing(path: Path, base_url: str, prompt: str) -> str | None:
    """Replay one request and swallow the cassette error it raises, as an SDK wrapper or
    an agent loop might; return the answer, None when there was none."""
    with use_cassette(vcr.VCR(), path):
        try:
            return ask(base_url, user(prompt))
        except CassetteError:
            return None


def request(body: object) -> Request:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Request("POST", URL, raw, {"content-type": "application/json"})


def matches(left: object, right: object, matcher: Any = json_body) -> bool:
    try:
        matcher(request(left), request(right))
    except AssertionError:
        return False
    return True


# -- normalising bodies ----------------------------------------------------------------


def test_volatile_paths_parse_into_keys_indexes_and_wildcards() -> None:
    assert parse_volatile_path("temperature") == ("temperature",)
    steps = parse_volatile_path("messages[*].tool_calls[0].function.name")
    wildcard = steps[1]
    assert steps == ("messages", wildcard, "tool_calls", 0, "function", "name")
    assert not isinstance(wildcard, str | int)
    assert parse_volatile_path("a[*][*].b") == ("a", wildcard, wildcard, "b")


@pytest.mark.parametrize("bad", ["", "a..b", "a[x].b", "messages[*]", "[*].name", "a b.c["])
def test_a_bad_volatile_path_is_refused_with_the_expected_form(bad: str) -> None:
    with pytest.raises(ValueError, match="bad volatile path") as caught:
        json_body_matcher([bad])
    assert repr(bad) in str(caught.value)


def test_volatile_must_be_a_sequence_of_strings() -> None:
    with pytest.raises(TypeError, match="not a single string"):
        json_body_matcher("temperature")
    with pytest.raises(TypeError, match="must be a string"):
        json_body_matcher([3])  # type: ignore[list-item]


def test_the_default_volatile_paths_never_decide_a_match() -> None:
    base = {"model": "m", "messages": user("hi")}
    noisy = {**base, "stream_options": {"include_usage": True}, "user": "u1", "metadata": {}}
    assert set(DEFAULT_VOLATILE) == {"stream_options", "user", "metadata"}
    assert matches(base, noisy)
    assert not matches(base, {**base, "model": "other"})


def test_declared_volatile_paths_are_ignored_too() -> None:
    left = {"temperature": 0.1, "messages": [{"role": "user", "name": "ann", "content": "hi"}]}
    right = {"temperature": 0.9, "messages": [{"role": "user", "name": "bob", "content": "hi"}]}
    assert not matches(left, right)
    assert matches(left, right, json_body_matcher(["temperature", "messages[*].name"]))
    changed = {**right, "messages": [{"role": "user", "name": "bob", "content": "bye"}]}
    assert not matches(left, changed, json_body_matcher(["temperature", "messages[*].name"]))


def test_an_index_in_a_volatile_path_reaches_one_item_and_missing_parts_are_skipped() -> None:
    first_only = json_body_matcher(["messages[0].content", "absent.key", "messages[9].x"])
    left = {"messages": [{"content": "a"}, {"content": "b"}]}
    assert matches(left, {"messages": [{"content": "z"}, {"content": "b"}]}, first_only)
    assert not matches(left, {"messages": [{"content": "a"}, {"content": "z"}]}, first_only)


def conversation(first: str, second: str, answer_for: str) -> dict[str, Any]:
    calls = [
        {"id": first, "type": "function", "function": {"name": "read", "arguments": "{}"}},
        {"id": second, "type": "function", "function": {"name": "list", "arguments": "{}"}},
    ]
    return {
        "messages": [
            *user("go"),
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": answer_for, "content": "done"},
        ]
    }


def test_tool_call_ids_are_renumbered_by_first_appearance() -> None:
    recorded = conversation("call_abc", "call_def", answer_for="call_def")
    assert matches(recorded, conversation("x9", "y8", answer_for="y8"))
    # The tool message answers the other call: a real difference, not an id change.
    assert not matches(recorded, conversation("x9", "y8", answer_for="x9"))
    text = canonical_body(json.dumps(recorded))
    assert '"id": "call#1"' in text
    assert '"tool_call_id": "call#2"' in text
    assert "call_abc" not in text


def test_bodies_that_are_not_json_compare_byte_for_byte() -> None:
    assert matches(b"plain text", b"plain text")
    assert not matches(b"plain text", b"plain text!")
    assert canonical_body(b"\xff\xfe").startswith("(body is not JSON)")
    assert canonical_body(None) == canonical_body(b"") == ""


def test_register_json_body_puts_the_matcher_on_a_vcr() -> None:
    recorder = vcr.VCR(match_on=MATCH_ON)
    register_json_body(recorder, volatile=["temperature"])
    matcher = recorder.matchers["json_body"]
    assert matcher.__name__ == "json_body"
    assert matches({"temperature": 1}, {"temperature": 2}, matcher)
    assert MATCH_ON == ("method", "host", "path", "json_body")


# -- misses ----------------------------------------------------------------------------


def test_a_changed_prompt_fails_with_a_diff_of_the_change(tmp_path: Path) -> None:
    path = tmp_path / "prompt.yaml"
    base_url = record(path, (user("Say PONG"), "PONG"))
    with pytest.raises(CassetteError) as caught:
        replay(path, base_url, user("Say PING"))
    error = caught.value
    assert error.code == "CASSETTE_MISMATCH"
    assert error.path == str(path)
    lines = str(error).splitlines()
    assert str(path) in lines[0]
    assert '-      "content": "Say PONG",' in lines
    assert '+      "content": "Say PING",' in lines
    assert "--hc-record-mode=rewrite" in str(error)


def test_volatile_differences_and_new_tool_call_ids_still_replay(tmp_path: Path) -> None:
    path = tmp_path / "volatile.yaml"
    recorded = conversation("call_1", "call_2", answer_for="call_2")["messages"]
    base_url = record(path, (recorded, "ok"), user="first", temperature=0.2)
    live = conversation("call_7", "call_8", answer_for="call_8")["messages"]
    with use_cassette(vcr.VCR(), path, volatile=["temperature"]) as use:
        assert ask(base_url, live, user="second", temperature=0.9) == "ok"
    assert use.cassette.play_counts[0] == 1


def test_identical_requests_replay_in_recorded_order(tmp_path: Path) -> None:
    path = tmp_path / "order.yaml"
    base_url = record(path, (user("same"), "first"), (user("same"), "second"))
    with use_cassette(vcr.VCR(), path):
        assert [ask(base_url, user("same")) for _ in range(2)] == ["first", "second"]


def test_the_diff_is_against_the_closest_unplayed_recording(tmp_path: Path) -> None:
    path = tmp_path / "closest.yaml"
    calls = [(user(f"question {n}"), f"answer {n}") for n in ("one", "two", "three")]
    base_url = record(path, *calls)
    with pytest.raises(CassetteError) as caught:
        replay(path, base_url, user("question one"), user("question three, rephrased"))
    message = str(caught.value)
    assert "against recorded #2 POST 127.0.0.1/v1/chat/completions" in message
    assert '-      "content": "question three",' in message.splitlines()


def test_a_miss_on_another_path_says_no_recording_has_that_path(tmp_path: Path) -> None:
    path = tmp_path / "route.yaml"
    base_url = record(path, (user("hi"), "hello"))
    with pytest.raises(CassetteError) as caught:
        replay(path, base_url.removesuffix("/v1"), user("hi"))
    message = str(caught.value)
    assert caught.value.code == "CASSETTE_MISMATCH"
    assert "no unplayed recorded request is a POST to 127.0.0.1/chat/completions" in message
    assert "the closest is #0 POST 127.0.0.1/v1/chat/completions" in message


def test_one_request_too_many_names_the_recording_already_played(tmp_path: Path) -> None:
    path = tmp_path / "extra.yaml"
    base_url = record(path, (user("hi"), "hello"))
    with pytest.raises(CassetteError) as caught:
        replay(path, base_url, user("hi"), user("hi"))
    assert caught.value.code == "CASSETTE_MISMATCH"
    assert "it matches recorded #0, all already played" in str(caught.value)


def test_replaying_a_cassette_that_does_not_exist_is_cassette_missing(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(CassetteError) as caught:
        replay(path, "http://127.0.0.1:9/v1", user("hi"))
    assert caught.value.code == "CASSETTE_MISSING"
    assert str(path) in str(caught.value)
    assert "--hc-record-mode=once" in str(caught.value)
    assert not path.exists()


@pytest.mark.parametrize("content", [b"", b"  \n", b"\xff\xfe not text"])
def test_a_cassette_that_loads_nothing_is_reported_as_corrupt(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_bytes(content)
    with pytest.raises(CassetteError) as caught:
        replay(path, "http://127.0.0.1:9/v1", user("hi"))
    assert caught.value.code == "CASSETTE_CORRUPT"
    assert str(path) in str(caught.value)
    assert path.read_bytes() == content


def test_a_miss_the_code_swallowed_is_raised_when_the_block_ends(tmp_path: Path) -> None:
    path = tmp_path / "swallowed.yaml"
    base_url = record(path, (user("hi"), "hello"))
    with pytest.raises(CassetteError) as caught:
        replay_swallowing(path, base_url, "bye")
    assert caught.value.code == "CASSETTE_MISMATCH"
    assert caught.value.__context__ is None


def test_a_miss_replaces_the_failure_it_caused_and_keeps_it_as_context(tmp_path: Path) -> None:
    path = tmp_path / "caused.yaml"
    base_url = record(path, (user("hi"), "hello"))

    def replay_and_check() -> None:
        with use_cassette(vcr.VCR(), path):
            try:
                answer = ask(base_url, user("bye"))
            except CassetteError:
                answer = None
            assert answer == "hello", "the model did not answer"

    with pytest.raises(CassetteError) as caught:
        replay_and_check()
    assert caught.value.code == "CASSETTE_MISMATCH"
    assert isinstance(caught.value.__context__, AssertionError)


# -- unplayed interactions -------------------------------------------------------------


def test_unplayed_interactions_fail_the_replay_and_are_listed(tmp_path: Path) -> None:
    path = tmp_path / "unused.yaml"
    calls = [(user("one"), "1"), (user("two"), "2"), (user("three " * 40), "3")]
    base_url = record(path, *calls)
    with pytest.raises(CassetteError) as caught:
        replay(path, base_url, user("one"))
    error = caught.value
    assert error.code == "CASSETTE_UNUSED"
    assert error.path == str(path)
    lines = str(error).splitlines()
    assert "2 of 3 recorded interactions were never played" in lines[0]
    assert lines[1] == (
        '  #1 POST 127.0.0.1/v1/chat/completions: last message {"content": "two", "role": "user"}'
    )
    assert lines[2].startswith("  #2 POST 127.0.0.1/v1/chat/completions: last message")
    assert lines[2].endswith("…")
    assert len(lines[2]) < 200


def test_a_reason_allows_unplayed_interactions(tmp_path: Path) -> None:
    path = tmp_path / "allowed.yaml"
    base_url = record(path, (user("one"), "1"), (user("two"), "2"))
    answers = replay(path, base_url, user("one"), allow_unused="the second call is optional")
    assert answers == ["1"]


@pytest.mark.parametrize("reason", ["", "   "])
def test_an_empty_allow_unused_reason_is_refused(tmp_path: Path, reason: str) -> None:
    with pytest.raises(ValueError, match="non-empty reason"):
        check_reason(reason)
    with pytest.raises(ValueError, match="non-empty reason"):
        replay(tmp_path / "x.yaml", "http://127.0.0.1:9/v1", allow_unused=reason)
    assert check_reason("  optional call ") == "optional call"
    assert check_reason(None) is None


def test_a_block_that_fails_on_its_own_is_not_also_blamed_for_unplayed_calls(
    tmp_path: Path,
) -> None:
    path = tmp_path / "failing.yaml"
    record(path, (user("one"), "1"))

    def fail() -> None:
        with use_cassette(vcr.VCR(), path):
            raise KeyError("the test's own failure")

    with pytest.raises(KeyError):
        fail()


def test_a_body_nested_too_deeply_is_compared_as_text() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    assert canonical_body(deep).startswith("(body is not JSON)\n[[[")
    assert canonical_body(deep) != canonical_body(b"[" * 99_999 + b"]" * 99_999)

"""A cassette runs its request hooks once per request it answers (`FilterOnce`): the
same unchanged request gets the same filtered copy, a request changed since is filtered
anew, and what a replay plays is what it played before."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import vcr  # type: ignore[import-untyped]
from openai import OpenAI
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import configure_vcr
from harness_conformance.cassettes._filter_once import FilterOnce
from harness_conformance.cassettes._modes import use_cassette
from harness_conformance.server import LoopbackModelServer, TextResponse

KEY = "sk-loopback-test"
URL = "http://127.0.0.1:9/v1/chat/completions"


def request(body: bytes = b'{"model": "m"}') -> Request:
    return Request("POST", URL, body, {"content-type": "application/json"})


class Counting:
    """A ``before_record_request`` hook that counts the requests it sees and marks a
    copy of each, as vcrpy's hooks work on a copy."""

    def __init__(self) -> None:
        self.seen: list[bytes] = []

    def __call__(self, given: Request) -> Request:
        self.seen.append(bytes(given.body))
        return Request(given.method, given.uri, given.body, {**given.headers, "x-filtered": "yes"})


def test_an_unchanged_request_is_filtered_once() -> None:
    hooks = Counting()
    once = FilterOnce(hooks)
    asked = request()
    first = once(asked)
    assert once(asked) is first
    assert hooks.seen == [b'{"model": "m"}']


def test_a_request_changed_since_is_filtered_anew() -> None:
    hooks = Counting()
    once = FilterOnce(hooks)
    asked = request()
    once(asked)
    asked.body = b'{"model": "other"}'
    once(asked)
    asked.headers["x-more"] = "1"
    once(asked)
    asked.uri = URL + "?page=2"
    once(asked)
    assert len(hooks.seen) == 4


def test_an_equal_request_of_its_own_is_filtered_too() -> None:
    hooks = Counting()
    once = FilterOnce(hooks)
    first, second = request(), request()
    assert once(first) is not once(second)
    assert len(hooks.seen) == 2


def test_a_hook_that_changes_the_request_it_is_given_has_it_filtered_again() -> None:
    seen: list[Request] = []

    def marking(given: Request) -> Request:
        seen.append(given)
        given.headers["x-seen"] = str(len(seen))
        return given

    once = FilterOnce(marking)
    asked = request()
    once(asked)
    once(asked)
    assert len(seen) == 2


def test_a_dropped_request_stays_dropped_and_other_objects_are_filtered_each_time() -> None:
    calls: list[object] = []

    def drop(given: Any) -> None:
        calls.append(given)

    once = FilterOnce(drop)
    asked = request()
    assert once(asked) is None
    assert once(asked) is None
    assert len(calls) == 1
    odd = object()
    once(odd)
    once(odd)
    assert calls[1:] == [odd, odd]


def test_only_the_last_few_requests_are_kept() -> None:
    hooks = Counting()
    once = FilterOnce(hooks)
    asked = [request(f'{{"n": {n}}}'.encode()) for n in range(FilterOnce.KEPT + 1)]
    for each in asked:
        once(each)
    once(asked[-1])
    assert len(hooks.seen) == FilterOnce.KEPT + 1
    once(asked[0])
    assert len(hooks.seen) == FilterOnce.KEPT + 2


def ask(base_url: str, text: str) -> str:
    with OpenAI(api_key=KEY, base_url=base_url, max_retries=0, timeout=10) as client:
        reply = client.chat.completions.create(
            model="m", messages=cast(Any, [{"role": "user", "content": text}])
        )
    return str(reply.choices[0].message.content)


def test_a_replay_runs_the_hooks_once_per_request_and_plays_what_it_recorded(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.yaml"
    script = [TextResponse("one", finish_reason="stop"), TextResponse("two", finish_reason="stop")]
    with LoopbackModelServer(script) as server, use_cassette(vcr.VCR(), path, mode="once"):
        base_url = server.base_url
        assert [ask(base_url, "first"), ask(base_url, "second")] == ["one", "two"]
    hooks = Counting()
    configured = configure_vcr(vcr.VCR(before_record_request=hooks))
    with use_cassette(configured, path, mode="none") as use:
        loaded = len(hooks.seen)
        assert [ask(base_url, "first"), ask(base_url, "second")] == ["one", "two"]
    assert loaded == 2  # each recorded request, as it was loaded
    assert len(hooks.seen) == loaded + 2  # each live request once, asked about and played
    assert all(request.headers["x-filtered"] == "yes" for request in use.cassette.requests)

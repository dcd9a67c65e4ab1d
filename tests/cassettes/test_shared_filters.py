"""Cassettes whose hooks are vcrpy's filters and our scrubbing alone share what those
hooks made of a request or response (`shared_chain`, `SharedFiltered`): the next load of
the same file does not filter it again, a changed file or a new secret is filtered anew,
a caller's own hook turns sharing off, and no cassette sees what another changed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import vcr  # type: ignore[import-untyped]
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import _format, _scrub, clear_caches, configure_vcr, make_vcr
from harness_conformance.cassettes._modes import use_cassette
from harness_conformance.cassettes._persist import CassettePersister
from harness_conformance.cassettes._shared_filters import (
    SHARED_REQUESTS,
    SHARED_RESPONSES,
    SharedFiltered,
    digest_of,
    shared_chain,
)
from harness_conformance.redaction import REDACTED, SECRET_ENV_VARS

URL = "http://127.0.0.1:9/v1/chat/completions"
LATER = "correct horse battery staple, later a key"


def save(path: Path, answer: str) -> None:
    """Write a cassette of one interaction whose answer is ``answer``."""
    request = Request("POST", URL, b'{"model": "m"}', {"content-type": "application/json"})
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"content-type": ["application/json"]},
        "body": {"string": json.dumps({"answer": answer}).encode()},
    }
    interactions = {"requests": [request], "responses": [response]}
    CassettePersister().save_cassette(path, interactions, _format)


@pytest.fixture
def scrubs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What the scrubber was asked to scrub ("request", "response"), from empty tables."""
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    seen: list[str] = []
    real_request, real_response = _scrub.Scrubber.scrub_request, _scrub.Scrubber.scrub_response

    def scrub_request(self: Any, request: Any) -> Any:
        seen.append("request")
        return real_request(self, request)

    def scrub_response(self: Any, response: Any) -> Any:
        seen.append("response")
        return real_response(self, response)

    monkeypatch.setattr(_scrub.Scrubber, "scrub_request", scrub_request)
    monkeypatch.setattr(_scrub.Scrubber, "scrub_response", scrub_response)
    clear_caches()
    yield seen
    clear_caches()


def loaded(path: Path, configured: Any = None) -> list[tuple[Any, Any]]:
    with use_cassette(configured or make_vcr(), path, mode="none", allow_unused="a load") as use:
        return list(use.cassette.data)


def answer(pair: tuple[Any, Any]) -> str:
    return str(json.loads(pair[1]["body"]["string"])["answer"])


def test_the_next_load_of_a_file_is_not_filtered_again(tmp_path: Path, scrubs: list[str]) -> None:
    path = tmp_path / "c.yaml"
    save(path, "first")
    scrubs.clear()
    first, second = loaded(path), loaded(path)
    assert scrubs == ["request", "response"]
    assert [answer(pair) for pair in first + second] == ["first", "first"]
    assert first[0][0] is not second[0][0]
    assert first[0][1] is not second[0][1]


def test_a_changed_file_is_filtered_anew(tmp_path: Path, scrubs: list[str]) -> None:
    path = tmp_path / "c.yaml"
    save(path, "first")
    scrubs.clear()
    assert answer(loaded(path)[0]) == "first"
    save(path, "second")
    del scrubs[2:]
    assert answer(loaded(path)[0]) == "second"
    assert scrubs == ["request", "response", "response"]  # the request did not change


def test_a_new_secret_is_replaced_in_what_was_shared(
    tmp_path: Path, scrubs: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.yaml"
    save(path, f"the next key is {LATER}")
    scrubs.clear()
    assert LATER in answer(loaded(path)[0])
    monkeypatch.setenv("OPENAI_API_KEY", LATER)
    assert answer(loaded(path)[0]) == f"the next key is {REDACTED}"
    assert len(scrubs) == 4


def test_what_one_cassette_changes_no_other_sees(tmp_path: Path, scrubs: list[str]) -> None:
    path = tmp_path / "c.yaml"
    save(path, "first")
    (request, response), *_ = loaded(path)
    request.headers["x-changed"] = "yes"
    request.body = b"changed"
    response["body"]["string"] = b'{"answer": "changed"}'
    response["headers"]["x-changed"] = ["yes"]
    (again, answered), *_ = loaded(path)
    assert "x-changed" not in again.headers
    assert again.body == b'{"model": "m"}'
    assert answer((again, answered)) == "first"
    assert "x-changed" not in answered["headers"]


def test_a_callers_hook_turns_sharing_off(tmp_path: Path, scrubs: list[str]) -> None:
    path = tmp_path / "c.yaml"
    save(path, "first")
    scrubs.clear()
    seen: list[str] = []

    def mine(request: Any) -> Any:
        seen.append(request.uri)
        return request

    for _ in range(2):
        loaded(path, configure_vcr(vcr.VCR(before_record_request=mine)))
    assert len(seen) == 2
    assert scrubs == ["request", "response"] * 2


@pytest.mark.parametrize(
    "options",
    [
        {"before_record_request": lambda request: request},
        {"before_record_response": lambda response: response},
        {"after_load_interaction": lambda request, response, cassette: (request, response)},
        {"filter_headers": [("x-trace", lambda key, value, request: "hidden")]},
        {"ignore_hosts": [object()]},
    ],
    ids=["request-hook", "response-hook", "load-hook", "header-function", "odd-host"],
)
def test_only_a_chain_of_our_own_is_shared(options: dict[str, Any]) -> None:
    assert shared_chain(configure_vcr(vcr.VCR(**options))) is None
    assert shared_chain(vcr.VCR()) is None  # not our persister
    plain = shared_chain(make_vcr(filter_headers=["x-trace", ("x-id", "hidden")]))
    other = shared_chain(make_vcr())
    assert plain is not None
    assert other is not None
    assert plain() == plain()
    assert plain() != other()


def test_digests_tell_data_apart_and_hold_none_of_it() -> None:
    def key(value: Any, chain: bytes = b"chain") -> bytes | None:
        found = digest_of(chain, value)
        return None if found is None else found[0]

    assert key({"a": [1, "x"]}) == key({"a": [1, "x"]})
    distinct = [
        key({"a": [1, "x"]}),
        key({"a": [1, "x"]}, chain=b"other chain"),
        key({"a": b"x"}),
        key({"a": "x"}),
        key({"a": (1,)}),
        key({"a": [1]}),
        key({"a": ["1"]}),
        key({"a": 1, "b": 2}),
        key({"b": 2, "a": 1}),
        key(("ab", "c")),
        key(("a", "bc")),
    ]
    assert len(set(distinct)) == len(distinct)
    assert digest_of(b"chain", {"a": object()}) is None
    assert digest_of(b"chain", {1: "x"}) is None
    found = digest_of(b"chain", {"secret": LATER})
    assert found is not None
    assert LATER.encode() not in found[0]
    assert found[1] == len(repr({"secret": LATER}))


def test_the_shared_table_is_bounded() -> None:
    table = SharedFiltered(size=2, budget=1000)
    for n in range(3):
        table.put(bytes([n]), {"n": n}, 10)
    assert len(table) == 2
    assert table.get(bytes([0])) == (False, None)
    assert table.get(bytes([2])) == (True, {"n": 2})
    table.put(b"big", {"big": True}, 600)  # more than a quarter of the budget
    assert table.get(b"big") == (False, None)
    table.clear()
    assert len(table) == 0
    SHARED_REQUESTS.put(b"x", {"n": 1}, 1)
    SHARED_RESPONSES.put(b"x", {"n": 1}, 1)
    clear_caches()
    assert len(SHARED_REQUESTS) == len(SHARED_RESPONSES) == 0

"""Scrubbing remembers the bodies it left unchanged (`CLEAN_TEXTS`), as digests only: the
same body under the same secrets is not searched again, while a body holding a secret,
a changed body or a new secret is always searched."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import _scrub, clear_caches
from harness_conformance.cassettes._clean_texts import CLEAN_TEXTS, CleanTexts
from harness_conformance.cassettes._scrub import Scrubber
from harness_conformance.redaction import REDACTED, SECRET_ENV_VARS, Redactor, Secret

KEY = "sk-" + "cleantexts" * 3
LATER = "sk-" + "laterlater" * 3


def stream(*pieces: str) -> str:
    events = [{"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in pieces]
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"


def response(text: str | bytes) -> dict[str, Any]:
    return {
        "status": {"code": 200, "message": "OK"},
        "headers": {"content-type": ["text/event-stream"]},
        "body": {"string": text},
    }


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The streamed bodies scrubbing searched, in order, with an empty table."""
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    seen: list[str] = []
    real = _scrub._stream_body

    def counting(body: Any, redactor: Redactor) -> Any:
        seen.append(body)
        return real(body, redactor)

    monkeypatch.setattr(_scrub, "_stream_body", counting)
    CLEAN_TEXTS.clear()
    yield seen
    CLEAN_TEXTS.clear()


def test_a_clean_body_is_searched_once(searches: list[str]) -> None:
    text = stream("a", "b")
    first = Scrubber().scrub_response(response(text))
    second = Scrubber().scrub_response(response(text))
    assert first == second == response(text)
    assert searches == [text]


def test_a_body_holding_a_secret_is_searched_every_time(searches: list[str]) -> None:
    text = stream("your key is ", KEY[:12], KEY[12:])
    for _ in range(2):
        scrubbed = Scrubber().scrub_response(response(text))["body"]["string"]
        assert KEY[:12] not in scrubbed
        assert REDACTED in scrubbed
    assert len(searches) == 2


def test_a_changed_body_is_searched(searches: list[str]) -> None:
    Scrubber().scrub_response(response(stream("a")))
    Scrubber().scrub_response(response(stream("b")))
    Scrubber().scrub_response(response(stream("a").encode()))
    assert len(searches) == 3


def test_a_new_secret_has_a_clean_body_searched_again(
    searches: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = stream("the next key is ", LATER[:10], LATER[10:])
    assert Scrubber().scrub_response(response(text)) == response(text)
    monkeypatch.setenv("OPENAI_API_KEY", LATER)
    scrubbed = Scrubber().scrub_response(response(text))["body"]["string"]
    assert LATER[:10] not in scrubbed
    assert REDACTED in scrubbed
    assert Scrubber(secrets=[LATER]).scrub_request(request(LATER)).body == REDACTED.encode()


def request(body: str) -> Request:
    return Request("POST", "http://127.0.0.1:9/v1/chat/completions", body, {})


def test_a_request_body_is_remembered_only_while_clean(searches: list[str]) -> None:
    clean = Scrubber().scrub_request(request('{"text": "hello"}'))
    again = Scrubber().scrub_request(request('{"text": "hello"}'))
    assert clean.body == again.body == b'{"text": "hello"}'
    for _ in range(2):
        assert Scrubber().scrub_request(request(KEY)).body == REDACTED.encode()


def test_the_table_holds_digests_only(searches: list[str]) -> None:
    Scrubber().scrub_response(response(stream("plain text")))
    Scrubber().scrub_request(request("plain body"))
    stored = list(CLEAN_TEXTS._digests)
    assert len(stored) == 2
    assert all(isinstance(digest, bytes) and len(digest) == 32 for digest in stored)
    assert all(KEY.encode() not in digest and b"plain" not in digest for digest in stored)


def test_a_scrubbed_response_is_a_copy_of_its_own(searches: list[str]) -> None:
    text = stream("a")
    first = Scrubber().scrub_response(response(text))
    first["body"]["string"] = "changed"
    first["headers"]["x-new"] = ["1"]
    assert Scrubber().scrub_response(response(text)) == response(text)


def test_digests_differ_by_secret_placeholder_kind_and_text() -> None:
    table = CleanTexts()
    one = Redactor([Secret(KEY)])
    digests = {
        table.digest("response body", "x", one),
        table.digest("response body", "x", Redactor([Secret(LATER)])),
        table.digest("response body", "x", Redactor([Secret(KEY)], placeholder="<gone>")),
        table.digest("request body", "x", one),
        table.digest("response body", b"x", one),
        table.digest("response body", "y", one),
    }
    assert len(digests) == 6
    assert table.digest("response body", "x", one) in digests


def test_the_table_is_bounded_and_cleared() -> None:
    table = CleanTexts(size=2)
    digests = [table.digest("k", str(n), Redactor([Secret(KEY)])) for n in range(3)]
    for digest in digests:
        table.add(digest)
    assert [table.known(d) for d in digests] == [False, True, True]
    CLEAN_TEXTS.add(digests[0])
    clear_caches()
    assert not CLEAN_TEXTS.known(digests[0])

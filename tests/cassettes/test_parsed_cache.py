"""Loading one cassette file again reuses its parsed form, yet every load returns new
objects, and a file changed in any way (or saved) is read and checked anew."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import _format, _persist
from harness_conformance.cassettes._persist import CassettePersister, _ParsedCache
from harness_conformance.errors import CassetteError


def cassette(answer: str) -> dict[str, Any]:
    request = Request(
        "POST",
        "http://127.0.0.1:9/v1/chat/completions",
        b'{"model": "m"}',
        {"content-type": "application/json"},
    )
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"content-type": ["application/json"]},
        "body": {"string": ('{"answer": "' + answer + '"}').encode()},
    }
    return {"requests": [request], "responses": [response]}


def saved(tmp_path: Path, answer: str = "first") -> tuple[CassettePersister, Path]:
    persister = CassettePersister()
    path = tmp_path / "c.yaml"
    persister.save_cassette(path, cassette(answer), _format)
    return persister, path


def body(loaded: Any) -> bytes:
    requests, responses, *_ = loaded
    assert len(requests) == len(responses) == 1
    return bytes(responses[0]["body"]["string"])


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = _format.load_document

    def counting(text: str, *, path: str | None = None) -> dict[str, Any]:
        calls.append(str(path))
        return real(text, path=path)

    monkeypatch.setattr(_format, "load_document", counting)
    monkeypatch.setattr(_persist, "_PARSED", _ParsedCache())
    return calls


def test_loading_an_unchanged_file_again_parses_it_once(tmp_path: Path, parses: list[str]) -> None:
    persister, path = saved(tmp_path)
    first = persister.load_cassette(path, _format)
    second = CassettePersister().load_cassette(path, _format)
    assert parses == [str(path)]
    assert body(first) == body(second) == b'{"answer": "first"}'
    assert first[0][0] is not second[0][0]
    assert first[1][0] is not second[1][0]


def test_what_a_caller_changes_in_a_load_never_reaches_the_next(
    tmp_path: Path, parses: list[str]
) -> None:
    persister, path = saved(tmp_path)
    requests, responses, *_ = persister.load_cassette(path, _format)
    responses[0]["body"]["string"] = b"changed"
    responses[0]["headers"]["content-type"].append("text/plain")
    responses[0]["status"]["code"] = 500
    requests[0].headers["content-type"] = "text/plain"
    requests[0].body = b"changed"
    requests.clear()
    again_requests, again_responses, *_ = persister.load_cassette(path, _format)
    assert len(parses) == 1
    assert again_responses[0]["body"]["string"] == b'{"answer": "first"}'
    assert again_responses[0]["headers"]["content-type"] == ["application/json"]
    assert again_responses[0]["status"]["code"] == 200
    assert again_requests[0].headers["content-type"] == "application/json"
    assert again_requests[0].body == b'{"model": "m"}'


def test_a_file_rewritten_in_place_with_the_same_size_is_read_again(
    tmp_path: Path, parses: list[str]
) -> None:
    persister, path = saved(tmp_path)
    assert body(persister.load_cassette(path, _format)) == b'{"answer": "first"}'
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("first", "other"), encoding="utf-8")
    assert body(persister.load_cassette(path, _format)) == b'{"answer": "other"}'
    assert len(parses) == 2


def test_a_save_is_seen_by_the_next_load(tmp_path: Path, parses: list[str]) -> None:
    persister, path = saved(tmp_path)
    persister.load_cassette(path, _format)
    persister.save_cassette(path, cassette("second"), _format)
    assert body(persister.load_cassette(path, _format)) == b'{"answer": "second"}'


def test_a_file_damaged_after_a_load_is_refused_on_the_next(
    tmp_path: Path, parses: list[str]
) -> None:
    persister, path = saved(tmp_path)
    persister.load_cassette(path, _format)
    path.write_text("interactions: [unclosed\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(CassetteError) as caught:
            persister.load_cassette(path, _format)
        assert caught.value.code == "CASSETTE_CORRUPT"
        assert str(path) in str(caught.value)
    assert len(parses) == 3


def test_the_cache_keeps_the_most_recently_used_entries() -> None:
    cache = _ParsedCache(size=2)
    cache.put(("a", "s"), b"A", {"a": 1})
    cache.put(("b", "s"), b"B", {"b": 1})
    assert cache.get(("a", "s"), b"A") == {"a": 1}
    cache.put(("c", "s"), b"C", {"c": 1})
    assert cache.get(("b", "s"), b"B") is None
    assert cache.get(("a", "s"), b"A") == {"a": 1}
    assert cache.get(("c", "s"), b"C") == {"c": 1}
    assert cache.get(("c", "s"), b"other bytes") is None
    cache.drop("c")
    assert cache.get(("c", "s"), b"C") is None

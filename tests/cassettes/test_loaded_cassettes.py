"""Replaying cassettes of a file loaded before take copies of that load (`LOADED`): the
state a restored load leaves is the state vcrpy's own load leaves, each cassette's
copy is its own, and a changed file, other secrets, a hook of the caller's or a
recording mode load through vcrpy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import vcr  # type: ignore[import-untyped]
from openai import OpenAI

from harness_conformance.cassettes import clear_caches, configure_vcr
from harness_conformance.cassettes._loaded import LOADED, LoadedCassettes, _Loaded
from harness_conformance.cassettes._modes import use_cassette
from harness_conformance.server import LoopbackModelServer, TextResponse

KEY = "sk-loopback-test"


def ask(base_url: str, text: str) -> str:
    with OpenAI(api_key=KEY, base_url=base_url, max_retries=0, timeout=10) as client:
        reply = client.chat.completions.create(
            model="m", messages=cast(Any, [{"role": "user", "content": text}])
        )
    return str(reply.choices[0].message.content)


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A cassette of two exchanges and the base URL it was recorded against."""
    clear_caches()
    path = tmp_path / "c.yaml"
    script = [TextResponse("one", finish_reason="stop"), TextResponse("two", finish_reason="stop")]
    with LoopbackModelServer(script) as server:
        with use_cassette(configure_vcr(vcr.VCR()), path, mode="once"):
            assert [ask(server.base_url, "first"), ask(server.base_url, "second")] == ["one", "two"]
        yield path, server.base_url
    clear_caches()


def state(cassette: Any) -> dict[str, Any]:
    """What a load leaves in a vcrpy cassette, as plain data."""

    def pairs(items: list[tuple[Any, Any]]) -> list[Any]:
        return [(request._to_dict(), response) for request, response in items]

    return {
        "data": pairs(cassette.data),
        "old": pairs(cassette._old_interactions),
        "loaded": cassette._loaded_count,
        "metadata": cassette._metadata,
        "dirty": cassette.dirty,
        "rewound": cassette.rewound,
    }


def replay(path: Path, base_url: str, *, mode: str = "none", **options: Any) -> dict[str, Any]:
    """Replay both exchanges of ``path``; the state its load left behind."""
    with use_cassette(configure_vcr(vcr.VCR(**options)), path, mode=mode) as use:
        loaded = state(use.cassette)
        assert [ask(base_url, "first"), ask(base_url, "second")] == ["one", "two"]
    return loaded


def test_a_restored_load_leaves_what_vcrpy_leaves_and_replays_the_same(
    recorded: tuple[Path, str],
) -> None:
    path, base_url = recorded
    clear_caches()
    through_vcrpy = replay(path, base_url)
    assert len(LOADED) == 1
    restored = [replay(path, base_url) for _ in range(3)]
    assert len(LOADED) == 1
    assert through_vcrpy["loaded"] == 2
    assert all(each == through_vcrpy for each in restored)


def test_each_cassette_gets_a_copy_of_its_own(recorded: tuple[Path, str]) -> None:
    path, base_url = recorded
    replay(path, base_url)
    with use_cassette(configure_vcr(vcr.VCR()), path, mode="none", allow_unused="spoiled") as use:
        request, response = use.cassette.data[0]
        response["body"]["string"] = b"spoiled"
        response["headers"]["x-spoiled"] = ["1"]
        request.headers["x-spoiled"] = "1"
        use.cassette._old_interactions[0][1]["status"]["code"] = 599
    again = replay(path, base_url)
    request_seen, response_seen = again["data"][0]
    assert b"spoiled" not in response_seen["body"]["string"]
    assert "x-spoiled" not in response_seen["headers"]
    assert "x-spoiled" not in request_seen["headers"]
    assert again["old"][0][1]["status"]["code"] == 200


def test_a_file_changed_since_is_loaded_anew(recorded: tuple[Path, str]) -> None:
    path, base_url = recorded
    replay(path, base_url)
    text = path.read_text("utf-8")
    assert "two" in text
    path.write_text(text.replace('"two"', '"TWO"').replace('\\"two\\"', '\\"TWO\\"'), "utf-8")
    with use_cassette(configure_vcr(vcr.VCR()), path, mode="none", allow_unused="read only") as use:
        bodies = [response["body"]["string"] for _request, response in use.cassette.data]
    assert any(b"TWO" in body for body in bodies)
    assert not any(b'"two"' in body or b'\\"two\\"' in body for body in bodies)


def test_other_secrets_are_another_chain_and_load_through_vcrpy(
    recorded: tuple[Path, str],
) -> None:
    path, base_url = recorded
    replay(path, base_url)
    with use_cassette(
        configure_vcr(vcr.VCR(), secrets=["a-secret-of-this-run"]), path, mode="none"
    ) as use:
        assert [ask(base_url, "first"), ask(base_url, "second")] == ["one", "two"]
        assert use.cassette._loaded_count == 2
    assert len(LOADED) == 2


def test_a_hook_of_the_callers_and_recording_modes_are_not_shared(
    recorded: tuple[Path, str],
) -> None:
    path, base_url = recorded
    seen: list[Any] = []

    def hook(response: Any) -> Any:
        seen.append(response)
        return response

    replay(path, base_url, before_record_response=hook)
    replay(path, base_url, before_record_response=hook)
    assert len(seen) == 4  # both loads filtered every response: nothing was shared
    assert len(LOADED) == 0
    with use_cassette(
        configure_vcr(vcr.VCR()), path, mode="new_episodes", allow_unused="read only"
    ) as use:
        assert use.cassette._loaded_count == 2
    assert len(LOADED) == 0


def test_the_table_keeps_the_newest_files_within_its_size_and_budget() -> None:
    table = LoadedCassettes(size=2, budget=40)

    def kept(data: bytes) -> _Loaded:
        return _Loaded(data, [], [], {})

    table.put(("a",), kept(b"1" * 5))
    table.put(("b",), kept(b"2" * 5))
    assert table.get(("a",), b"1" * 5) is not None
    table.put(("c",), kept(b"3" * 5))
    assert len(table) == 2
    assert table.get(("b",), b"2" * 5) is None  # the least recent left
    table.put(("d",), kept(b"4" * 11))  # over a quarter of the budget: not kept
    assert table.get(("d",), b"4" * 11) is None
    assert table.get(("c",), b"3" * 6) is None  # other bytes under the same key
    table.clear()
    assert len(table) == 0


def test_what_the_table_holds_is_json_of_the_file_and_no_secret(
    recorded: tuple[Path, str],
) -> None:
    path, base_url = recorded
    replay(path, base_url)
    held = json.dumps(repr(LOADED.values()))
    assert len(LOADED) == 1
    assert KEY not in held

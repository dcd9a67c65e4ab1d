"""Record modes and `use_cassette`, over real loopback sockets: what each mode sends to
the server, what it writes, and an agent session recorded and then replayed with the
server stopped and the network guard on."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
import vcr  # type: ignore[import-untyped]
import yaml
from openai import OpenAI

from harness_conformance import tool
from harness_conformance.agent import Agent, TurnResult
from harness_conformance.cassettes._modes import (
    DEFAULT_MODE,
    MODES,
    VCR_RECORD_MODES,
    check_mode,
    is_ci,
    resolve_mode,
    use_cassette,
)
from harness_conformance.errors import CassetteError
from harness_conformance.invariants import check_log
from harness_conformance.models._openai_compat import OpenAICompatibleModel
from harness_conformance.server import LoopbackModelServer, TextResponse, ToolCallsResponse

KEY = "sk-loopback-test"


def ask(base_url: str, prompt: str) -> str:
    with OpenAI(api_key=KEY, base_url=base_url, max_retries=0, timeout=10) as client:
        reply = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": prompt}]
        )
    return str(reply.choices[0].message.content)


def prompts_in(path: Path) -> list[str]:
    """The user prompt of every interaction stored in a cassette, in order."""
    stored = yaml.safe_load(path.read_text())
    bodies = [interaction["request"]["body"] for interaction in stored["interactions"]]
    return [json.loads(body)["messages"][-1]["content"] for body in bodies]


def serve(*replies: str) -> LoopbackModelServer:
    return LoopbackModelServer([TextResponse(reply) for reply in replies])


def record(path: Path, *prompts: str) -> None:
    with (
        serve(*(p.upper() for p in prompts)) as server,
        use_cassette(vcr.VCR(), path, mode="once") as use,
    ):
        assert not use.replaying
        for prompt in prompts:
            assert ask(server.base_url, prompt) == prompt.upper()
    server.assert_consumed()


def guarded() -> bool:
    return "connect" in vars(socket.socket)


# -- choosing the mode -----------------------------------------------------------------


def test_no_mode_means_none_and_an_explicit_mode_always_wins() -> None:
    assert resolve_mode(None, env={}) == DEFAULT_MODE == "none"
    for mode in MODES:
        assert resolve_mode(mode, env={}) == mode
        assert resolve_mode(mode, env={"CI": "true"}) == mode
    assert resolve_mode(" New_Episodes ", env={}) == "new_episodes"


def test_ci_forces_none_over_a_configured_mode() -> None:
    assert resolve_mode(None, configured="once", env={}) == "once"
    assert resolve_mode(None, configured="once", env={"CI": "1"}) == "none"
    assert resolve_mode("once", configured="all", env={"CI": "1"}) == "once"
    for value in ("", "0", "false", "No", "off"):
        assert not is_ci({"CI": value})
        assert resolve_mode(None, configured="all", env={"CI": value}) == "all"
    assert is_ci({"CI": "true"})
    assert not is_ci({})


@pytest.mark.parametrize("bad", ["onse", "", "replay", "record"])
def test_an_unknown_mode_is_refused_with_the_valid_ones(bad: str) -> None:
    attempts: list[Callable[[], str]] = [
        lambda: resolve_mode(bad, env={}),
        lambda: resolve_mode(None, configured=bad, env={"CI": "1"}),
        lambda: check_mode(bad),
    ]
    for attempt in attempts:
        with pytest.raises(ValueError) as caught:
            attempt()
        assert str(caught.value) == (
            f"unknown record mode {bad!r}; valid modes are: none, once, new_episodes, all, rewrite"
        )


def test_every_mode_maps_to_a_vcrpy_record_mode() -> None:
    assert tuple(VCR_RECORD_MODES) == MODES
    assert VCR_RECORD_MODES["rewrite"] == "all"
    valid = {mode.value for mode in vcr.record_mode.RecordMode}
    assert set(VCR_RECORD_MODES.values()) <= valid


def enter(path: Path | str, **options: Any) -> None:
    with use_cassette(vcr.VCR(), path, **options):
        pass


def test_use_cassette_refuses_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown record mode"):
        enter(tmp_path / "a.yaml", mode="sometimes")
    with pytest.raises(ValueError, match="unknown matcher 'bodyy'"):
        enter(tmp_path / "a.yaml", match_on=("method", "bodyy"))
    with pytest.raises(ValueError, match="needs a cassette path"):
        enter("")
    with pytest.raises(TypeError, match="not a single string"):
        enter(tmp_path / "a.yaml", volatile="temperature")
    assert not list(tmp_path.iterdir())


# -- what each mode does ---------------------------------------------------------------


def test_once_records_a_missing_cassette_then_replays_it_offline(tmp_path: Path) -> None:
    path = tmp_path / "once.yaml"
    record(path, "ping")
    assert prompts_in(path) == ["ping"]
    with use_cassette(vcr.VCR(), path, mode="once") as use:
        assert guarded()
        assert ask("http://127.0.0.1:9/v1", "ping") == "PING"
    assert use.replaying
    assert not guarded()


def test_new_episodes_replays_what_matches_and_records_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "episodes.yaml"
    record(path, "ping")
    with serve("NEW") as server, use_cassette(vcr.VCR(), path, mode="new_episodes") as use:
        assert not guarded()
        assert ask(server.base_url, "ping") == "PING"
        assert ask(server.base_url, "new") == "NEW"
    assert not use.replaying
    assert [r.body["messages"][0]["content"] for r in server.requests] == ["new"]
    assert prompts_in(path) == ["ping", "new"]


def test_all_records_every_request_again_and_keeps_the_others(tmp_path: Path) -> None:
    path = tmp_path / "all.yaml"
    record(path, "ping", "pong")
    with serve("PING AGAIN") as server, use_cassette(vcr.VCR(), path, mode="all"):
        assert ask(server.base_url, "ping") == "PING AGAIN"
    assert len(server.requests) == 1
    assert prompts_in(path) == ["pong", "ping"]


def test_rewrite_leaves_exactly_this_runs_interactions(tmp_path: Path) -> None:
    path = tmp_path / "rewrite.yaml"
    record(path, "ping", "pong")
    with serve("FRESH") as server, use_cassette(vcr.VCR(), path, mode="rewrite") as use:
        assert not guarded()
        assert ask(server.base_url, "ping") == "FRESH"
    assert not use.replaying
    assert prompts_in(path) == ["ping"]
    with use_cassette(vcr.VCR(), path):
        assert ask("http://127.0.0.1:9/v1", "ping") == "FRESH"


def record_then_fail(path: Path, base_url: str, mode: str) -> None:
    with use_cassette(vcr.VCR(), path, mode=mode):
        ask(base_url, "ping")
        raise RuntimeError("the test failed midway")


def test_a_rewrite_that_fails_leaves_the_old_cassette_untouched(tmp_path: Path) -> None:
    path = tmp_path / "kept.yaml"
    record(path, "ping")
    before = path.read_bytes()
    with serve("LOST") as server, pytest.raises(RuntimeError, match="midway"):
        record_then_fail(path, server.base_url, "rewrite")
    assert len(server.requests) == 1
    assert path.read_bytes() == before


def test_a_rewrite_that_makes_no_request_removes_the_cassette(tmp_path: Path) -> None:
    path = tmp_path / "gone.yaml"
    record(path, "ping")
    with use_cassette(vcr.VCR(), path, mode="rewrite"):
        pass
    assert not path.exists()


def test_a_failing_first_recording_still_saves_what_it_recorded(tmp_path: Path) -> None:
    path = tmp_path / "partial.yaml"
    with serve("PING") as server, pytest.raises(RuntimeError, match="midway"):
        record_then_fail(path, server.base_url, "once")
    assert prompts_in(path) == ["ping"]


def test_replaying_blocks_the_network_until_the_block_ends(tmp_path: Path) -> None:
    path = tmp_path / "guarded.yaml"
    record(path, "ping")
    answers: list[str] = []

    def replay_then_connect() -> None:
        with use_cassette(vcr.VCR(), path):
            answers.append(ask("http://127.0.0.1:9/v1", "ping"))
            with socket.socket() as sock:
                sock.settimeout(1)
                sock.connect(("192.0.2.1", 9))

    with pytest.raises(CassetteError) as caught:
        replay_then_connect()
    assert answers == ["PING"]
    assert caught.value.code == "NETWORK_BLOCKED"
    assert not guarded()


# -- an agent session, end to end ------------------------------------------------------


@tool
def read(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


async def converse(base_url: str, prompt: str) -> tuple[TurnResult, Agent]:
    async with OpenAICompatibleModel(base_url=base_url, api_key=KEY) as model:
        agent = Agent(model, [read], invariants="strict")
        return await agent.run(prompt), agent


def test_an_agent_session_recorded_then_replayed_with_the_server_stopped(
    tmp_path: Path,
) -> None:
    path = tmp_path / "session.yaml"
    script: list[Any] = [
        ToolCallsResponse([("c1", "read", '{"path": "a.txt"}')], text="Reading."),
        TextResponse("It says: contents of a.txt", reasoning="Done."),
    ]
    with LoopbackModelServer(script) as server, use_cassette(vcr.VCR(), path, mode="once"):
        base_url = server.base_url
        recorded, _agent = anyio.run(converse, base_url, "Read a.txt")
    server.assert_consumed()
    assert recorded.reason == {"kind": "completed"}

    # The server is stopped now: only the cassette can answer.
    with use_cassette(vcr.VCR(), path) as use:
        assert guarded()
        replayed, agent = anyio.run(converse, base_url, "Read a.txt")
    assert use.replaying
    assert replayed.reason == {"kind": "completed"}
    assert replayed.text == recorded.text == "It says: contents of a.txt"
    assert [r.content for r in replayed.tool_results] == ["contents of a.txt"]
    assert check_log(agent.events) == []
    assert dict(use.cassette.play_counts) == {0: 1, 1: 1}

    reasons: list[dict[str, Any]] = []

    def replay_other_prompt() -> None:
        with use_cassette(vcr.VCR(), path):
            reasons.append(anyio.run(converse, base_url, "Read b.txt")[0].reason)

    with pytest.raises(CassetteError) as caught:
        replay_other_prompt()
    # The loop reports the miss as an error turn; the cassette still raises it.
    assert [reason["kind"] for reason in reasons] == ["error"]
    assert caught.value.code == "CASSETTE_MISMATCH"
    assert '+      "content": "Read b.txt",' in str(caught.value).splitlines()

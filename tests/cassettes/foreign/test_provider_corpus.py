"""Every recorded Anthropic Messages, OpenAI Responses and Gemini cassette of the corpus
replays through the loop under ``strict``, in the format its own requests name.

The expected tool-call counts come from the corpus's own index (`INDEX.md`, written
with the collection by counting the recorded responses independently), not from our
readers. A file that is refused must be listed in `REFUSED` with the words of its
refusal; the goal is that at least 95 % of each format's files replay cleanly.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from harness_conformance.cassettes.foreign._load import load_foreign_cassette
from harness_conformance.cassettes.foreign._replay import ForeignReplay, replay_foreign
from harness_conformance.errors import CassetteError
from harness_conformance.events import ToolCallEvent
from harness_conformance.invariants import check_log
from harness_conformance.wire import detect

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "provider-cassettes"
FORMATS = ("anthropic-messages", "openai-responses", "gemini")
FILES = sorted(CORPUS.glob("*/*/*.yaml"))
GOAL = 0.95
"""The share of each format's files that must replay with no violation."""

REFUSED: dict[str, str] = {}
"""Corpus files the replay refuses, by path under the corpus, with the refusal's words."""

_ROW = re.compile(r"^\| `(?P<file>[^`]+)` \|")
_SECTION = re.compile(r"^#### (?P<folder>[a-z-]+/[a-z-]+) ")


def _index() -> dict[str, int]:
    """Recorded client tool calls per file, from the corpus index's tables."""
    counts: dict[str, int] = {}
    folder = ""
    for line in (CORPUS / "INDEX.md").read_text(encoding="utf-8").splitlines():
        section = _SECTION.match(line)
        if section:
            folder = section["folder"]
            continue
        row = _ROW.match(line)
        if row and folder:
            cells = [cell.strip() for cell in line.strip("|").split(" | ")]
            counts[f"{folder}/{row['file']}"] = int(cells[7])
    return counts


INDEX = _index()


def _name(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


@cache
def replayed(path: Path) -> ForeignReplay | CassetteError:
    try:
        return replay_foreign(path, profile="strict")
    except CassetteError as exc:
        return exc


def test_the_corpus_and_its_index_agree() -> None:
    assert len(FILES) == 90
    assert sorted(INDEX) == sorted(_name(path) for path in FILES)
    for wire in FORMATS:
        assert len([p for p in FILES if _name(p).startswith(wire + "/")]) == 30


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_every_request_is_read_in_the_format_of_its_folder(path: Path) -> None:
    wire = _name(path).split("/")[0]
    for interaction in load_foreign_cassette(path):
        found = detect(interaction.method, interaction.uri, interaction.request_body)
        assert found is not None, f"interaction {interaction.index} is not detected"
        assert found.name == wire


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_corpus_file_replays_under_strict(path: Path) -> None:
    result = replayed(path)
    if isinstance(result, CassetteError):
        reason = REFUSED.get(_name(path))
        assert reason is not None, f"unexpected refusal: {result}"
        assert reason in str(result)
        return
    assert _name(path) not in REFUSED, "listed as refused, but it replays"
    assert result.violations == ()
    assert result.skipped == ()
    for session in result.sessions:
        assert session.wire == _name(path).split("/")[0]
        assert check_log(session.events, "strict") == []
        assert session.unplayed == ()
        assert len(session.turn_reasons) == len(session.prompts)


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_every_recorded_client_tool_call_reaches_the_loop(path: Path) -> None:
    result = replayed(path)
    if isinstance(result, CassetteError):
        pytest.skip(f"refused: {result}")
    assert result.tool_calls == INDEX[_name(path)]
    played = [event for event in result.events if isinstance(event, ToolCallEvent)]
    assert len(played) == result.tool_calls


@pytest.mark.parametrize("wire", FORMATS)
def test_the_goal_holds_for_each_format(wire: str) -> None:
    files = [p for p in FILES if _name(p).startswith(wire + "/")]
    clean = [
        p
        for p in files
        if not isinstance(result := replayed(p), CassetteError) and result.violations == ()
    ]
    assert len(clean) / len(files) >= GOAL, sorted(_name(p) for p in set(files) - set(clean))


def test_server_side_tools_are_shown_and_never_played() -> None:
    path = (
        CORPUS / "anthropic-messages/pydantic-ai/test_anthropic_model_web_search_tool_stream.yaml"
    )
    result = replayed(path)
    assert not isinstance(result, CassetteError)
    calls = [call for session in result.sessions for call in session.server_calls]
    assert calls, "the recorded web search is not shown"
    assert all(call.type == "server_tool_use" for call in calls)
    assert [e for e in result.events if isinstance(e, ToolCallEvent)] == []
    notes = [note for session in result.sessions for note in session.notes]
    assert any("web_search" in note for note in notes)


def test_a_chained_responses_conversation_is_one_session() -> None:
    name = "openai-responses/crewai/test_openai_responses_api_auto_chain_integration.yaml"
    interactions = load_foreign_cassette(CORPUS / name)
    assert "previous_response_id" in interactions[1].request_body
    result = replayed(CORPUS / name)
    assert not isinstance(result, CassetteError)
    assert len(result.sessions) == 1
    assert result.sessions[0].interactions == (0, 1)
    assert len(result.sessions[0].prompts) == 2

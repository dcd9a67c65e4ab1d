"""The command line replays and shows every wire format, and refuses unknown ones by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_conformance.cassettes import replay_foreign
from harness_conformance.cli import main
from harness_conformance.cli.timeline._sessions import timeline_of_replay

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = ROOT / "fixtures" / "cassettes" / "providers"
UNKNOWN = """interactions:
- request:
    body: '{"model": "command-r", "message": "hi"}'
    headers: {}
    method: POST
    uri: https://api.cohere.test/v2/chat
  response:
    body: {string: '{"text": "hello"}'}
    headers: {Content-Type: [application/json]}
    status: {code: 200, message: OK}
version: 1
"""


def test_a_cassette_in_an_unknown_format_is_an_error_row_with_its_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cohere.yaml").write_text(UNKNOWN, encoding="utf-8")
    report = tmp_path / "report.json"
    assert main(["replay", str(tmp_path), "--json", str(report)]) == 1
    out = capsys.readouterr().out
    assert "ERROR CASSETTE_UNKNOWN_FORMAT" in out
    assert "interaction 0 (POST https://api.cohere.test/v2/chat)" in out
    data = json.loads(report.read_text(encoding="utf-8"))
    (entry,) = data["cassettes"]
    assert entry["error"]["code"] == "CASSETTE_UNKNOWN_FORMAT"


def test_show_refuses_an_unknown_format_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cohere.yaml"
    path.write_text(UNKNOWN, encoding="utf-8")
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    assert "wire format this library does not read" in err


@pytest.mark.parametrize("wire", ["anthropic-messages", "openai-responses", "gemini"])
def test_the_shipped_recordings_of_each_format_replay_and_show_their_format(
    wire: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "-q", str(PROVIDERS / wire)]) == 0
    assert ", 0 violations," in capsys.readouterr().out
    first = sorted((PROVIDERS / wire).rglob("*.yaml"))[0]
    assert main(["show", str(first)]) == 0
    assert f"wire format: {wire}" in capsys.readouterr().out


def test_show_names_the_tools_the_provider_ran() -> None:
    path = (
        ROOT
        / "tests/corpora/provider-cassettes/anthropic-messages/pydantic-ai"
        / "test_anthropic_model_web_search_tool_stream.yaml"
    )
    timeline = timeline_of_replay(replay_foreign(path), "strict")
    (session,) = timeline.sessions
    assert session.wire == "anthropic-messages"
    assert session.server_calls == ("web_search (server_tool_use)",) * 2
    assert [tool.name for tool in session.tools] == []

"""``record --provider`` records each wire format against the loopback server, and the
cassette replays in that format."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness_conformance.cassettes import find_secrets, replay_foreign
from harness_conformance.cli import main
from harness_conformance.events import ToolCallEvent, ToolResultEvent
from harness_conformance.server import LoopbackModelServer, TextResponse, ToolCallsResponse

KEY = "sk-" + "provider-record-test-8c1d5e"
ENV = "HC_TEST_PROVIDER_KEY"
SCENARIO = """\
system: Use the tools.
prompts:
  - What is the weather in Paris?
tools:
  - name: get_weather
    description: Current weather for a city.
    parameters:
      type: object
      properties:
        city: {type: string}
      required: [city]
    result: "sunny, 21 C"
"""
FORMATS = ("anthropic-messages", "openai-responses", "gemini")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, KEY)
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def _script() -> list[ToolCallsResponse | TextResponse]:
    return [
        ToolCallsResponse([("call_1", "get_weather", '{"city": "Paris"}')]),
        TextResponse("Sunny, 21 C in Paris."),
    ]


@pytest.mark.parametrize("wire", FORMATS)
def test_each_format_records_a_tool_session_that_replays_in_that_format(
    wire: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "weather.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    cassette = tmp_path / "weather-cassette.yaml"
    with LoopbackModelServer(_script()) as server:
        status = main(
            [
                "record",
                str(scenario),
                "-o",
                str(cassette),
                "--provider",
                wire,
                "--model",
                "loopback-model",
                "--base-url",
                server.base_url,
                "--api-key-env",
                ENV,
            ]
        )
        server.assert_consumed()
        second = server.requests[1]
    assert status == 0, capsys.readouterr()
    text = cassette.read_text(encoding="utf-8")
    assert KEY not in text
    assert find_secrets(text) == []
    assert "sunny, 21 C" in second.raw.decode("utf-8")

    replay = replay_foreign(cassette)
    assert replay.violations == ()
    assert [session.wire for session in replay.sessions] == [wire]
    calls = [e for e in replay.events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", '{"city": "Paris"}')]
    assert len([e for e in replay.events if isinstance(e, ToolResultEvent)]) == 1


def test_a_scenario_names_its_provider(tmp_path: Path) -> None:
    scenario = tmp_path / "weather.yaml"
    scenario.write_text("provider: anthropic-messages\n" + SCENARIO, encoding="utf-8")
    cassette = tmp_path / "out.yaml"
    with LoopbackModelServer(_script()) as server:
        args = ["record", str(scenario), "-o", str(cassette), "--base-url", server.base_url]
        assert main([*args, "--api-key-env", ENV]) == 0
        assert server.requests[0].path == "/v1/messages"
    assert replay_foreign(cassette).sessions[0].wire == "anthropic-messages"


def test_an_unknown_provider_in_a_scenario_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "weather.yaml"
    scenario.write_text("provider: cohere\n" + SCENARIO, encoding="utf-8")
    status = main(["record", str(scenario), "-o", str(tmp_path / "x.yaml"), "--api-key-env", ENV])
    assert status == 2
    err = capsys.readouterr().err
    assert str(scenario) in err
    assert "provider" in err
    assert "anthropic-messages" in err


@pytest.mark.parametrize(
    ("wire", "names"),
    [("anthropic-messages", "ANTHROPIC_API_KEY"), ("gemini", "GEMINI_API_KEY or GOOGLE_API_KEY")],
)
def test_each_provider_reads_its_own_key_variables(
    wire: str, names: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["record", "--prompt", "Hi", "-o", str(tmp_path / "never.yaml"), "--provider", wire]
    assert main(args) == 2
    assert f"the environment variable {names} is not set" in capsys.readouterr().err
    assert not (tmp_path / "never.yaml").exists()


def test_the_help_lists_every_provider(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["record", "--help"])
    out = textwrap.dedent(capsys.readouterr().out)
    for wire in ("openai-chat", *FORMATS):
        assert wire in out

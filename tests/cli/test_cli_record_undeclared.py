"""``record`` reports a call of a tool the scenario did not declare, and exits 1.

The loopback server plays a model that calls a misspelt tool; the registry answers the
call ``UNKNOWN_TOOL`` and the model then finishes its turn, so the turn completes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness_conformance.cli import main
from harness_conformance.server import (
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

ENV = "HC_TEST_RECORD_UNDECLARED_KEY"

SCENARIO = """\
prompts: ["What is the weather in Paris?", "And in Rome?"]
tools:
  - name: get_weather
    description: Current weather for a city.
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    result: "sunny, 21 C"
"""


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "sk-" + "undeclared-test-0c9e2a7d51b3")


def _record(tmp_path: Path, script: list[ScriptEntry]) -> int:
    scenario = tmp_path / "weather.yaml"
    scenario.write_text(textwrap.dedent(SCENARIO), encoding="utf-8")
    with LoopbackModelServer(script) as server:
        status = main(
            [
                "record",
                str(scenario),
                "-o",
                str(tmp_path / "out.yaml"),
                "--base-url",
                server.base_url,
                "--api-key-env",
                ENV,
            ]
        )
        server.assert_consumed()
    return status


def test_a_call_of_an_undeclared_tool_is_reported_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script: list[ScriptEntry] = [
        ToolCallsResponse([("c1", "get_wether", '{"city": "Paris"}')]),
        TextResponse("I could not look it up."),
        TextResponse("Rome: no idea."),
    ]
    status = _record(tmp_path, script)
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert (
        'turn 1: completed, 1 call of an undeclared tool: "get_wether" (UNKNOWN_TOOL): '
        "'I could not look it up.'"
    ) in lines
    assert "turn 2: completed: 'Rome: no idea.'" in lines
    assert (tmp_path / "out.yaml").is_file()


def test_several_undeclared_calls_are_counted_and_each_name_shown_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script: list[ScriptEntry] = [
        ToolCallsResponse(
            [
                ("c1", "get_wether", "{}"),
                ("c2", "get_weather", '{"city": "Paris"}'),
                ("c3", "get_wether", "{}"),
                ("c4", "forecast", "{}"),
            ]
        ),
        TextResponse("Done."),
        TextResponse("Done again."),
    ]
    assert _record(tmp_path, script) == 1
    out = capsys.readouterr().out
    assert (
        'turn 1: completed, 3 calls of undeclared tools: "get_wether", "forecast" '
        "(UNKNOWN_TOOL): 'Done.'"
    ) in out.splitlines()


def test_declared_tools_only_exit_0_without_the_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script: list[ScriptEntry] = [
        ToolCallsResponse([("c1", "get_weather", '{"city": "Paris"}')]),
        TextResponse("Sunny."),
        TextResponse("Also sunny."),
    ]
    assert _record(tmp_path, script) == 0
    out = capsys.readouterr().out
    assert "undeclared" not in out
    assert "turn 1: completed: 'Sunny.'" in out.splitlines()

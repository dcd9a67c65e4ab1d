"""``harness-conformance record`` against a loopback server, and its scenario files.

Every recording goes to a `LoopbackModelServer` started by the test; the key is a fake
value put in the environment, which the server never checks and the cassette must not
contain.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness_conformance.cassettes import replay_foreign
from harness_conformance.cli import main
from harness_conformance.events import AssistantMessageEvent, ToolCallEvent, ToolResultEvent
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

KEY = "sk-" + "record-test-5f3a9c1e7b2d4068"
ENV = "HC_TEST_RECORD_KEY"

WEATHER_SCENARIO = """\
model: deepseek-chat
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


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, KEY)


@pytest.fixture
def modules(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Module names a test imports through a scenario; forgotten afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)


def _write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _record(server: LoopbackModelServer, *args: str) -> int:
    return main(["record", *args, "--base-url", server.base_url, "--api-key-env", ENV])


def _texts(result: ToolResultEvent) -> list[str]:
    return [part["text"] for block in result.message["content"] for part in block["content"]]


def test_records_a_scenario_that_replays_with_its_tool_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = _write(tmp_path / "weather.yaml", WEATHER_SCENARIO)
    cassette = tmp_path / "out" / "weather.yaml"
    script: list[ScriptEntry] = [
        ToolCallsResponse([("call_1", "get_weather", '{"city": "Paris"}')]),
        TextResponse("Sunny, 21 C in Paris."),
    ]
    with LoopbackModelServer(script) as server:
        status = _record(server, str(scenario), "-o", str(cassette))
        server.assert_consumed()

    out = capsys.readouterr().out
    assert status == 0
    assert "recorded 2 interactions into" in out
    assert str(cassette) in out
    assert "tool calls: 1" in out
    assert "Sunny, 21 C in Paris." in out
    assert KEY not in cassette.read_text(encoding="utf-8")
    assert sorted(p.name for p in cassette.parent.iterdir()) == ["weather.yaml"]

    replay = replay_foreign(cassette)
    assert replay.violations == ()
    calls = [e for e in replay.events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", '{"city": "Paris"}')]
    results = [e for e in replay.events if isinstance(e, ToolResultEvent)]
    assert [_texts(r) for r in results] == [["sunny, 21 C"]]
    final = [e for e in replay.events if isinstance(e, AssistantMessageEvent)][-1]
    assert final.message["content"] == [{"type": "text", "text": "Sunny, 21 C in Paris."}]


def test_records_prompts_and_writes_the_session_log(tmp_path: Path) -> None:
    cassette = tmp_path / "two.yaml"
    log = tmp_path / "two.jsonl"
    with LoopbackModelServer([TextResponse("Red."), TextResponse("A cherry.")]) as server:
        status = _record(
            server,
            "--prompt",
            "Pick a colour.",
            "--prompt",
            "Name a fruit of it.",
            "-o",
            str(cassette),
            "--log",
            str(log),
            "--model",
            "my-model",
        )
        bodies = [request.body for request in server.requests]
    assert status == 0
    assert [body["model"] for body in bodies] == ["my-model", "my-model"]
    replay = replay_foreign(cassette)
    assert replay.sessions[0].prompts == ("Pick a colour.", "Name a fruit of it.")
    assert '"type":"turn/end"' in log.read_text(encoding="utf-8").replace(" ", "")


def test_python_tools_and_per_call_results(tmp_path: Path, modules: list[str]) -> None:
    modules.append("record_test_tools_add")
    _write(
        tmp_path / "record_test_tools_add.py",
        """\
        def add(a, b):
            return str(a + b)
        """,
    )
    scenario = _write(
        tmp_path / "tools.yaml",
        """\
        prompts: [Add and look up.]
        tools:
          - name: add
            description: Add two integers.
            parameters:
              type: object
              properties: {a: {type: integer}, b: {type: integer}}
              required: [a, b]
            python: record_test_tools_add:add
          - name: lookup
            description: Look a word up.
            parameters: {type: object, properties: {word: {type: string}}}
            results: [first, second]
        """,
    )
    cassette = tmp_path / "tools-cassette.yaml"
    script: list[ScriptEntry] = [
        ToolCallsResponse(
            [
                ("c1", "add", '{"a": 2, "b": 40}'),
                ("c2", "lookup", '{"word": "x"}'),
                ("c3", "lookup", '{"word": "y"}'),
                ("c4", "lookup", '{"word": "z"}'),
            ]
        ),
        TextResponse("Done."),
    ]
    with LoopbackModelServer(script) as server:
        assert _record(server, str(scenario), "-o", str(cassette)) == 0
    results = [e for e in replay_foreign(cassette).events if isinstance(e, ToolResultEvent)]
    assert [_texts(r) for r in results[:3]] == [["42"], ["first"], ["second"]]
    # chat completions carry no error flag on a tool message; the text says it
    assert _texts(results[3])[0].startswith("Error: ")
    assert "gives tool 'lookup' 2 results and this is call 3" in _texts(results[3])[0]


def test_a_turn_ending_in_error_is_recorded_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "denied.yaml"
    with LoopbackModelServer([ErrorResponse(401)]) as server:
        status = _record(server, "--prompt", "Hi", "--prompt", "Again", "-o", str(cassette))
    out = capsys.readouterr().out
    assert status == 1
    assert "error AUTH" in out
    assert "not sent after the error: 1 prompt" in out
    [reason] = replay_foreign(cassette).sessions[0].turn_reasons
    assert reason["error"]["code"] == "AUTH"


def test_a_secret_in_the_traffic_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaked = "sk-" + "Zq8Jx2Lm4Np6Rt8Vw0Yb3Cd5Ef7Gh9"
    out = tmp_path / "out"
    out.mkdir()
    with LoopbackModelServer([TextResponse(f"Use the key {leaked}.", piece=200)]) as server:
        status = _record(server, "--prompt", "Hi", "-o", str(out / "leak.yaml"))
    err = capsys.readouterr().err
    assert status == 2
    assert "[CASSETTE_SECRET]" in err
    assert leaked not in err
    assert list(out.iterdir()) == []


def test_missing_key_is_a_usage_error_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(ENV)
    cassette = tmp_path / "never.yaml"
    status = main(["record", "--prompt", "Hi", "-o", str(cassette), "--api-key-env", ENV])
    assert status == 2
    assert f"the environment variable {ENV} is not set" in capsys.readouterr().err
    assert not cassette.exists()


def test_default_key_variable_is_deepseek(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    status = main(["record", "--prompt", "Hi", "-o", str(tmp_path / "never.yaml")])
    assert status == 2
    assert "DEEPSEEK_API_KEY" in capsys.readouterr().err


def test_existing_output_needs_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cassette = tmp_path / "kept.yaml"
    cassette.write_text("old\n", encoding="utf-8")
    with LoopbackModelServer([TextResponse("New.")]) as server:
        refused = _record(server, "--prompt", "Hi", "-o", str(cassette))
        assert "already exists; pass --force" in capsys.readouterr().err
        assert cassette.read_text(encoding="utf-8") == "old\n"
        assert server.requests == []
        forced = _record(server, "--prompt", "Hi", "-o", str(cassette), "--force")
    assert (refused, forced) == (2, 0)
    assert cassette.read_text(encoding="utf-8").startswith("harness_conformance:")


def test_scenario_and_prompt_together_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = _write(tmp_path / "s.yaml", WEATHER_SCENARIO)
    status = main(["record", str(scenario), "--prompt", "Hi", "-o", str(tmp_path / "c.yaml")])
    assert status == 2
    assert "not both" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("bad.yaml", "prompts:\n  - ok\n tools: [\n", "at line 3, column 2: not valid YAML"),
        ("unknown.yaml", "prompts: [hi]\ntemprature: 0\n", "at temprature: unknown key"),
        (
            "tool_key.yaml",
            "prompts: [hi]\ntools:\n  - {name: t, parameters: {}, result: x, retries: 2}\n",
            "at tools[0].retries: unknown key 'retries'",
        ),
        (
            "no_params.yaml",
            "prompts: [hi]\ntools:\n  - {name: look, description: d, result: x}\n",
            "at tools[0]: tool 'look' has no parameters",
        ),
        (
            "no_import.yaml",
            "prompts: [hi]\ntools:\n"
            "  - {name: t, parameters: {type: object}, python: 'no_such_pkg_hc.mod:fn'}\n",
            "at tools[0].python: cannot import module 'no_such_pkg_hc.mod'",
        ),
        (
            "two_answers.yaml",
            "prompts: [hi]\ntools:\n  - {name: t, parameters: {type: object}, result: a, "
            "results: [b]}\n",
            "needs exactly one of result, results or python (it has result, results)",
        ),
        ("no_prompts.yaml", "model: x\n", "at prompts: give a non-empty list of prompts"),
        (
            "bad_schema.yaml",
            "prompts: [hi]\ntools:\n  - {name: t, parameters: {type: frobnicate}, result: x}\n",
            "at tools[0].parameters: unsupported schema",
        ),
    ],
)
def test_scenario_errors_name_the_file_and_the_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, expected: str
) -> None:
    scenario = _write(tmp_path / name, text)
    cassette = tmp_path / "never.yaml"
    status = main(["record", str(scenario), "-o", str(cassette), "--api-key-env", ENV])
    err = capsys.readouterr().err
    assert status == 2
    assert f"scenario file {scenario}" in err
    assert expected in err
    assert not cassette.exists()


@pytest.mark.parametrize(
    "text",
    ['{"prompts": ["a",]}', '{\n  "prompts": ["a"],\n  "model": \n}\n', '{"prompts": ["a"]'],
    ids=["trailing-comma", "missing-value", "unclosed"],
)
def test_a_json_scenario_that_does_not_parse_names_the_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    scenario = tmp_path / "bad.json"
    scenario.write_text(text, encoding="utf-8")
    # The parser's own wording and column differ between Python versions, so the
    # expected place and reason are the ones this interpreter's parser gives.
    with pytest.raises(json.JSONDecodeError) as parsed:
        json.loads(text)
    place = f"line {parsed.value.lineno}, column {parsed.value.colno}"
    cassette = tmp_path / "never.yaml"
    status = main(["record", str(scenario), "-o", str(cassette), "--api-key-env", ENV])
    err = capsys.readouterr().err
    assert status == 2
    assert err.splitlines() == [
        f"harness-conformance record: scenario file {scenario} at {place}: "
        f"not valid JSON ({parsed.value.msg}); fix the syntax"
    ]
    assert not cassette.exists()


def test_an_interrupted_run_leaves_no_file(
    tmp_path: Path, modules: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    modules.append("record_test_tools_stop")
    _write(
        tmp_path / "record_test_tools_stop.py",
        """\
        def stop(**arguments):
            raise KeyboardInterrupt
        """,
    )
    scenario = _write(
        tmp_path / "stop.yaml",
        """\
        prompts: [Stop.]
        tools:
          - {name: stop, parameters: {type: object}, python: "record_test_tools_stop:stop"}
        """,
    )
    out = tmp_path / "out"
    out.mkdir()
    script: list[ScriptEntry] = [
        ToolCallsResponse([("c1", "stop", "{}")]),
        TextResponse("never sent"),
    ]
    with LoopbackModelServer(script) as server:
        status = _record(server, str(scenario), "-o", str(out / "stop.yaml"))
        assert len(server.requests) == 1
    assert status == 130
    assert "no cassette was written" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_an_interrupted_forced_run_keeps_the_old_cassette(
    tmp_path: Path, modules: list[str]
) -> None:
    modules.append("record_test_tools_stop2")
    _write(tmp_path / "record_test_tools_stop2.py", "def stop():\n    raise KeyboardInterrupt\n")
    scenario = _write(
        tmp_path / "stop.yaml",
        "prompts: [Stop.]\ntools:\n  - {name: stop, parameters: {type: object}, "
        'python: "record_test_tools_stop2:stop"}\n',
    )
    out = tmp_path / "out"
    out.mkdir()
    cassette = out / "kept.yaml"
    cassette.write_text("old\n", encoding="utf-8")
    with LoopbackModelServer([ToolCallsResponse([("c1", "stop", "{}")])]) as server:
        status = _record(server, str(scenario), "-o", str(cassette), "--force")
    assert status == 130
    assert [p.name for p in out.iterdir()] == ["kept.yaml"]
    assert cassette.read_text(encoding="utf-8") == "old\n"

"""Checked replay of a marker-only cassette test (its own loop, here the plain openai SDK):
with ``hc_checked_replay`` or ``hc_cassette(checked=True)``, after the body passes in
replay the cassette is checked as ``harness-conformance replay`` checks it: a recorded
tool call that breaks its recorded schema is listed in the report and, when asked
(``--hc-fail-on-invalid-args``, its ini key, or the marker's ``fail_on_invalid_args``),
fails the test with ``INVALID_ARGS``; invariant violations fail it with ``INVARIANT``.
Off by default, off under ``hc_cassette(checked=False)`` and ``hc_invariants("off")``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _plugin_project import RECORD, SENTINEL

from harness_conformance.server import LoopbackModelServer, TextResponse, ToolCallsResponse

OWN_LOOP = """
import os

import openai
import pytest

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look a city up.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
]


MARK


def test_own_loop(request):
    client = openai.OpenAI(
        api_key=os.environ.get("OPENAI_API_KEY", "unused"),
        base_url=request.config.getini("hc_base_url"),
        max_retries=0,
    )
    messages = [{"role": "user", "content": "Weather in the lost city?"}]
    reply = client.chat.completions.create(model="gpt-test", messages=messages, tools=TOOLS)
    call = reply.choices[0].message.tool_calls[0]
    messages += [
        reply.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
    ]
    client.chat.completions.create(model="gpt-test", messages=messages, tools=TOOLS)
"""

MARKS = {
    "plain": "@pytest.mark.hc_cassette",
    "checked": "@pytest.mark.hc_cassette(checked=True)",
    "not checked": "@pytest.mark.hc_cassette(checked=False)",
    "strict": "@pytest.mark.hc_cassette(checked=True, fail_on_invalid_args=True)",
    "off": '@pytest.mark.hc_cassette\n@pytest.mark.hc_invariants("off", reason="a demo")',
    "bad": '@pytest.mark.hc_cassette(checked="yes")',
}


def _recorded(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    arguments: str,
    mark: str,
    ini: str = "hc_checked_replay = true\n",
) -> None:
    pytester.makepyfile(test_own=OWN_LOOP.replace("MARK", MARKS[mark]))
    script: list[Any] = [
        ToolCallsResponse([("call_1", "lookup", arguments)]),
        TextResponse("Sunny."),
    ]
    with LoopbackModelServer(script) as server:
        pytester.makeini(f"[pytest]\nhc_base_url = {server.base_url}\n{ini}")
        monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
        monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("CI", "true")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-rA", "-vv", "-p", "no:cacheprovider", *args)


BROKEN = '{"town": "Atlantis"}'


def test_an_invalid_recorded_call_is_reported(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded(pytester, monkeypatch, BROKEN, "plain")
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*harness-conformance tool calls*",
            'interaction 0, lookup {"town": "Atlantis"}: missing required property "city"; *',
        ]
    )


@pytest.mark.slow
@pytest.mark.parametrize("how", ["option", "ini"])
def test_it_fails_the_test_when_asked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    _recorded(pytester, monkeypatch, BROKEN, "plain")
    if how == "ini":
        ini = Path(pytester.path, "tox.ini")  # where pytester.makeini writes
        ini.write_text(ini.read_text().rstrip("\n") + "\nhc_fail_on_invalid_args = true\n")
    result = _run(pytester, *(["--hc-fail-on-invalid-args"] if how == "option" else []))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_own.py::test_own_loop - harness_conformance.ToolArgsError: invalid "
            "arguments: *test_own_loop.yaml: 1 recorded tool call(s) (--hc-fail-on-invalid-args)"
            ': interaction 0, lookup {"town": "Atlantis"}: *',
        ]
    )


def test_a_valid_call_passes_silently(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded(pytester, monkeypatch, '{"city": "Paris"}', "plain")
    result = _run(pytester, "--hc-fail-on-invalid-args")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*harness-conformance tool calls*")


def test_invariants_off_leaves_it_unchecked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded(pytester, monkeypatch, BROKEN, "off")
    result = _run(pytester, "--hc-fail-on-invalid-args")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*harness-conformance tool calls*")


BREAKS_A_RULE = """
import pytest

import harness_conformance.cassettes as cassettes
from harness_conformance.invariants import Violation

REAL = cassettes.replay_foreign


class WithViolation:
    def __init__(self, replay):
        self._replay = replay

    def __getattr__(self, name):
        return getattr(self._replay, name)

    @property
    def violations(self):
        return (Violation(rule="turn-pairing", seq=3, message="a turn ends twice"),)


@pytest.fixture(autouse=True)
def a_loop_that_breaks_a_rule(monkeypatch):
    monkeypatch.setattr(cassettes, "replay_foreign", lambda *a, **k: WithViolation(REAL(*a, **k)))
"""


def test_an_invariant_violation_fails_the_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded(pytester, monkeypatch, '{"city": "Paris"}', "plain")
    pytester.makeconftest(BREAKS_A_RULE)
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_own.py::test_own_loop - harness_conformance.InvariantError: "
            "*test_own_loop.yaml: replayed through the loop, the recorded sessions break 1 "
            "invariant(s): turn-pairing at seq 3: a turn ends twice",
        ]
    )


@pytest.mark.parametrize(
    ("mark", "ini", "listed"),
    [
        ("plain", "", False),
        ("checked", "", True),
        ("not checked", "hc_checked_replay = true\n", False),
    ],
    ids=["off by default", "the marker turns it on", "the marker turns it off"],
)
def test_the_marker_wins_over_the_ini(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mark: str, ini: str, listed: bool
) -> None:
    _recorded(pytester, monkeypatch, BROKEN, mark, ini)
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    assert ("harness-conformance tool calls" in result.stdout.str()) is listed


def test_the_marker_can_ask_to_fail_on_invalid_args(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded(pytester, monkeypatch, BROKEN, "strict", "")
    _run(pytester).assert_outcomes(failed=1)


def test_a_flag_that_is_not_a_bool_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded(pytester, monkeypatch, '{"city": "Paris"}', "bad")
    result = _run(pytester)
    result.stdout.fnmatch_lines(["*hc_cassette(checked=...) takes True or False, not 'yes'*"])
    assert result.ret != 0

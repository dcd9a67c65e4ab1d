"""``@pytest.mark.hc_chaos`` with this library's `Agent` (``hc_chaos.agent()``, sync and
async), and the errors of the marker: no cassette, a record mode that records, bad
``examples``, unknown fault kinds, a test without the fixture."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _plugin_project import replaying

SHIPPED = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "loopback"

AGENT_TESTS = '''
import json

import pytest
from hypothesis import settings

from harness_conformance import tool

QUESTION = "What is the weather in Paris right now?"
SYSTEM = "Answer weather questions with the get_weather tool."


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


def note(hc_chaos, result):
    with open("turns.jsonl", "a", encoding="utf-8") as seen:
        fault = hc_chaos.fault
        print(json.dumps({"fault": fault and fault.kind, "spoiled": hc_chaos.spoiled,
                          "retried": hc_chaos.retried, "reason": result.reason}), file=seen)


@pytest.mark.hc_cassette(name="weather")
@pytest.mark.hc_chaos(
    examples=12, faults=["status", "reset-during-body", "truncated", "malformed-event"]
)
@settings(derandomize=True, database=None)
def test_agent(hc_chaos):
    result = hc_chaos.agent([get_weather], system=SYSTEM).run_sync(QUESTION)
    hc_chaos.check_turn(result)
    if not hc_chaos.spoiled:
        assert result.reason == {"kind": "completed"}
        assert result.text == "It is sunny in Paris, 21 C."
    note(hc_chaos, result)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.hc_cassette(name="weather")
@pytest.mark.hc_chaos(examples=4, faults=["status", "stall"])
@settings(derandomize=True, database=None)
async def test_agent_async(hc_chaos):
    result = await hc_chaos.agent([get_weather], system=SYSTEM).run(QUESTION)
    hc_chaos.check_turn(result)
    if not hc_chaos.spoiled:
        assert result.text == "It is sunny in Paris, 21 C."
'''

ERROR_TESTS = """
import pytest


@pytest.mark.hc_chaos
def test_missing(hc_chaos):
    pass


@pytest.mark.hc_cassette(name="weather")
@pytest.mark.hc_chaos(examples=0)
def test_no_examples(hc_chaos):
    pass


@pytest.mark.hc_cassette(name="weather")
@pytest.mark.hc_chaos(examples="many")
def test_wordy_examples(hc_chaos):
    pass


@pytest.mark.hc_cassette(name="weather")
@pytest.mark.hc_chaos(faults=["status", "lightning"])
def test_unknown_fault(hc_chaos):
    pass


@pytest.mark.hc_cassette(name="weather")
@pytest.mark.hc_chaos
def test_without_the_fixture():
    pass


@pytest.mark.hc_cassette(name="weather", record_mode="rewrite")
@pytest.mark.hc_chaos
def test_recording(hc_chaos):
    pass
"""


def project(pytester: pytest.Pytester, tests: str) -> None:
    pytester.makepyfile(test_chaos=tests)
    folder = pytester.path / "fixtures" / "cassettes" / "test_chaos"
    folder.mkdir(parents=True)
    shutil.copy(SHIPPED / "tool_call.yaml", folder / "weather.yaml")


@pytest.mark.slow
def test_the_agent_ends_each_spoiled_turn_with_the_fault_code(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch)
    project(pytester, AGENT_TESTS)
    pytester.runpytest().assert_outcomes(passed=2)
    import json

    lines = (pytester.path / "turns.jsonl").read_text(encoding="utf-8").splitlines()
    seen = [json.loads(line) for line in lines]
    assert len(seen) == 13
    assert seen[0] == {
        "fault": None,
        "spoiled": False,
        "retried": False,
        "reason": {"kind": "completed"},
    }
    # Some faults the loop retried (the turn then completed as recorded), some it could
    # not (the turn ended with the fault's code, which check_turn asserted).
    assert any(example["retried"] for example in seen)
    spoiled = [example for example in seen if example["spoiled"]]
    assert spoiled, "no drawn example reached the agent with a fault it could not retry"
    assert all(example["reason"]["kind"] == "error" for example in spoiled)


def test_the_marker_errors_name_the_test_and_what_to_do(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without CI, so that the marker's record mode holds.
    monkeypatch.delenv("CI", raising=False)
    project(pytester, ERROR_TESTS)
    result = pytester.runpytest()
    result.assert_outcomes(errors=6)
    result.stdout.fnmatch_lines_random(
        [
            "*test_chaos/test_missing.yaml: no such cassette; hc_chaos replays a recorded "
            "cassette and never records: record it first*",
            "*test_chaos.py::test_no_examples: hc_chaos(examples=...) takes a whole number "
            "of examples of at least 1, not 0",
            "*test_chaos.py::test_wordy_examples: hc_chaos(examples=...) takes a whole number "
            "of examples of at least 1, not 'many'",
            "*test_chaos.py::test_unknown_fault: hc_chaos(faults=...) names unknown fault "
            "kinds 'lightning'; the kinds are status, reset-before-body, reset-during-body, "
            "truncated, malformed-event, keep-alive-flood, stall",
            "*test_chaos.py::test_without_the_fixture: @pytest.mark.hc_chaos needs the test "
            "to take the hc_chaos fixture*",
            "*test_chaos.py::test_recording: hc_chaos replays a recorded cassette and never "
            "records, so it cannot run under the record mode 'rewrite'*",
        ]
    )
    result.stdout.fnmatch_lines(["*CassetteError CASSETTE_MISSING"])


def test_the_marker_and_its_option_are_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.hc_chaos(examples=None, faults=True, chunkings=*"])
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*--hc-chaos-examples*"])


COUNTING_TEST = """
import pytest


@pytest.mark.hc_cassette(name="weather")
@pytest.mark.hc_allow_unused(reason="counts the examples only")
@pytest.mark.hc_chaos(faults=False)
def test_count(hc_chaos):
    with open("examples.txt", "a", encoding="utf-8") as seen:
        print(repr(hc_chaos.example), file=seen)
"""


@pytest.mark.parametrize(
    ("args", "ini", "count"),
    [((), None, 21), (("--hc-chaos-examples=3",), None, 4), ((), "2", 3)],
    ids=["default", "option", "ini"],
)
def test_the_examples_come_from_the_option_the_ini_or_the_default(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    ini: str | None,
    count: int,
) -> None:
    replaying(monkeypatch)
    project(pytester, COUNTING_TEST)
    if ini is not None:
        pytester.makeini(f"[pytest]\nhc_chaos_examples = {ini}\n")
    pytester.runpytest(*args).assert_outcomes(passed=1)
    seen = (pytester.path / "examples.txt").read_text(encoding="utf-8").splitlines()
    # The recording as recorded, then the drawn examples.
    assert seen[0] == "ChaosExample(cuts={}, fault=None)"
    assert len(seen) == count


UNKNOWN_FORMAT_TESTS = """
import pytest


@pytest.mark.hc_cassette(name="cohere")
@pytest.mark.hc_chaos
def test_cohere(hc_chaos):
    pass
"""


def test_a_model_call_in_a_format_no_reader_knows_is_refused_as_replay_refuses_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch)
    project(pytester, UNKNOWN_FORMAT_TESTS)
    request = json.dumps({"model": "c", "message": "hi"})
    cassette = pytester.path / "fixtures" / "cassettes" / "test_chaos" / "cohere.yaml"
    cassette.write_text(
        "interactions:\n- request:\n    method: POST\n    uri: https://api.cohere.test/v2/chat\n"
        f"    body: {json.dumps(request)}\n    headers: {{}}\n  response:\n"
        "    status: {code: 200, message: OK}\n    headers: {}\n"
        '    body: {string: \'{"text": "hi"}\'}\nversion: 1\n',
        encoding="utf-8",
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*cohere.yaml: interaction 0 (POST https://api.cohere.test/v2/chat) is a model "
            "call in a wire format this library does not read*",
            "*CASSETTE_UNKNOWN_FORMAT*",
        ]
    )

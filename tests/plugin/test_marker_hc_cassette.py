"""``hc_cassette(name=..., record_mode=...)``: a named cassette shared by several tests,
and a per-test record mode that CI and the command line override."""

from __future__ import annotations

import pytest
from _plugin_project import (
    RECORD,
    add_script,
    cassette_files,
    recording,
    replaying,
    session_test,
)

from harness_conformance.server import TextResponse

SHARED_TESTS = """
import asyncio

import pytest

from harness_conformance import Agent


async def converse(model, replay_session, prompt):
    async with model:
        return await replay_session(Agent(model), [prompt])


@pytest.mark.hc_cassette(name="shared")
def test_first(hc_model, replay_session):
    assert asyncio.run(converse(hc_model, replay_session, "greet")).text == "hello"


@pytest.mark.hc_cassette(name="shared")
def test_second(hc_model, replay_session):
    assert asyncio.run(converse(hc_model, replay_session, "greet")).text == "hello"
"""


def test_tests_may_share_a_named_cassette(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=SHARED_TESTS)
    with recording(pytester, monkeypatch, [TextResponse("hello")]) as server:
        pytester.runpytest(RECORD).assert_outcomes(passed=2)
    # The first test records; the second finds the file and replays it.
    server.assert_consumed()
    assert cassette_files(pytester.path) == [
        pytester.path / "fixtures" / "cassettes" / "test_agent" / "shared.yaml"
    ]
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=2)


ONCE = '@pytest.mark.hc_cassette(record_mode="once")'


def test_the_marker_mode_records_without_ci(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    pytester.makepyfile(test_agent=session_test(markers=[ONCE]))
    with recording(pytester, monkeypatch, add_script()) as server:
        pytester.runpytest().assert_outcomes(passed=1)
    server.assert_consumed()
    assert len(cassette_files(pytester.path)) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ci", "args"),
    [("true", ()), (None, ("--hc-record-mode=none",))],
    ids=["ci", "command-line"],
)
def test_ci_and_the_command_line_override_the_marker_mode(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    ci: str | None,
    args: tuple[str, ...],
) -> None:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makepyfile(test_agent=session_test(markers=[ONCE]))
    with recording(pytester, monkeypatch, add_script()) as server:
        result = pytester.runpytest(*args)
    assert server.requests == []
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteError CASSETTE_MISSING"])


def test_an_unknown_marker_mode_is_an_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = '@pytest.mark.hc_cassette(record_mode="sometimes")'
    pytester.makepyfile(test_agent=session_test(markers=[marker]))
    with recording(pytester, monkeypatch, add_script()) as server:
        result = pytester.runpytest()
    assert server.requests == []
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*test_agent.py::test_session: unknown record mode 'sometimes'; valid modes are:"
            " none, once, new_episodes, all, rewrite"
        ]
    )

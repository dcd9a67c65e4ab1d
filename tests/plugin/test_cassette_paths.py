"""Where each test's cassette lives: ``<dir>/<module>/<test name[params]>.yaml`` with
unsafe characters replaced; two tests mapping to one file implicitly stop the run."""

from __future__ import annotations

import pytest
from _plugin_project import RECORD, cassette_files, recording, replaying

from harness_conformance.server import TextResponse

GREETING_TEST = """
import asyncio

import pytest

from harness_conformance import Agent


async def converse(model, replay_session, prompt):
    async with model:
        return await replay_session(Agent(model), [prompt])


@pytest.mark.parametrize("who", WHO)
def test_greet(hc_model, replay_session, who):
    run = asyncio.run(converse(hc_model, replay_session, f"greet {who}"))
    assert run.ok


class TestGroup:
    def test_member(self, hc_model, replay_session):
        run = asyncio.run(converse(hc_model, replay_session, "greet the group"))
        assert run.ok
"""


def test_params_and_classes_name_the_file_sanitised(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=GREETING_TEST.replace("WHO", repr(["ann", 'b/o:b"<x>'])))
    script = [TextResponse("hello")] * 3
    with recording(pytester, monkeypatch, script) as server:
        pytester.runpytest(RECORD).assert_outcomes(passed=3)
    server.assert_consumed()
    folder = pytester.path / "fixtures" / "cassettes" / "test_agent"
    assert cassette_files(pytester.path) == [
        folder / "TestGroup.test_member.yaml",
        folder / "test_greet[ann].yaml",
        folder / "test_greet[b_o_b_x_].yaml",
    ]
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=3)


def test_two_tests_mapping_to_one_file_stop_the_run_naming_both(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_agent=GREETING_TEST.replace("WHO", repr(["a/b", "a_b", "c"])))
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.assert_outcomes()
    result.stderr.fnmatch_lines(
        [
            "*these tests map to the same cassette file; give them distinct names with"
            " @pytest.mark.hc_cassette(name=...):",
            "*  fixtures/cassettes/test_agent/test_greet?a_b?.yaml:"
            " test_agent.py::test_greet?a/b?, test_agent.py::test_greet?a_b?",
        ]
    )
    assert "test_greet[c]" not in result.stderr.str()


def test_tests_without_a_cassette_never_collide(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
        import pytest

        @pytest.mark.parametrize("x", ["a/b", "a_b"])
        def test_plain(x):
            pass
        """
    )
    pytester.runpytest().assert_outcomes(passed=2)

"""The standard suites, as a downstream project uses them: subclass, run, snapshot; and
the collection check that refuses deleted or unmarked overridden standard tests."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from _chat_exchange import chat_exchange
from _plugin_project import rewrite_module

import harness_conformance.cassettes.foreign as foreign_replay
from harness_conformance import Violation
from harness_conformance.standard import validation_report

pytestmark = pytest.mark.slow

TOOL_SUITE = """
import pytest

from harness_conformance import tool
from harness_conformance.standard import ToolConformanceTests


@tool
def move(src: str, dst: str, overwrite: bool = False, retries: int = 0) -> str:
    '''Move a file.'''
    return dst


class TestMove(ToolConformanceTests):
    tool = move
BODY
"""

SESSION_SUITE = """
from harness_conformance.standard import SessionConformanceTests


class TestSessions(SessionConformanceTests):
    cassettes = CASSETTES
"""

FIXED = 6
"""The standard tool tests besides ``test_corruption_is_rejected``, one per kind."""


def _exchange(messages: list[dict[str, Any]], reply: str) -> dict[str, Any]:
    request = {"model": "m", "messages": messages}
    message = {"role": "assistant", "content": reply}
    return chat_exchange(
        request, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    )


def write_cassette(path: Path, reply: str = "hello") -> Path:
    """A one-turn chat-completions cassette in vcrpy's YAML format."""
    path.parent.mkdir(parents=True, exist_ok=True)
    interaction = _exchange([{"role": "user", "content": "hi"}], reply)
    path.write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}))
    return path


def tool_suite(body: str = "") -> str:
    return TOOL_SUITE.replace("BODY", body)


def corruption_kinds(pytester: pytest.Pytester) -> list[str]:
    """The corruption kinds the project's tool suite runs, from its collection."""
    listing = pytester.runpytest("--collect-only", "-q", "-k", "corruption")
    return [
        line.split("[", 1)[1].rstrip("]")
        for line in listing.outlines
        if "test_corruption_is_rejected[" in line
    ]


# -- a downstream project ------------------------------------------------------------


def test_both_suites_pass_and_the_report_snapshot_guards_messages(
    pytester: pytest.Pytester,
) -> None:
    write_cassette(pytester.path / "cassettes" / "greeting.yaml")
    write_cassette(pytester.path / "cassettes" / "nested" / "farewell.yaml", reply="bye")
    pytester.makepyfile(
        test_move=tool_suite(),
        test_sessions=SESSION_SUITE.replace("CASSETTES", '"cassettes"'),
    )
    kinds = corruption_kinds(pytester)
    assert {"missing-required", "wrong-type", "not-an-object"} <= set(kinds)
    result = pytester.runpytest("--snapshot-update", "-v")
    result.assert_outcomes(passed=FIXED + len(kinds) + 2)
    result.stdout.fnmatch_lines(
        [
            "*test_cassette_replays_without_violations?cassettes/greeting.yaml? PASSED*",
            "*test_cassette_replays_without_violations?cassettes/nested/farewell.yaml? PASSED*",
        ]
    )
    (snapshot,) = pytester.path.rglob("*.validation.txt")
    assert snapshot.name == "TestMove.test_validation_report_matches_snapshot.validation.txt"

    pytester.runpytest().assert_outcomes(passed=FIXED + len(kinds) + 2)

    changed = tool_suite().replace("retries: int = 0", "retries: float = 0")
    rewrite_module(pytester, test_move=changed)
    result = pytester.runpytest("-k", "TestMove")
    result.assert_outcomes(passed=FIXED - 1 + len(kinds), failed=1)
    result.stdout.fnmatch_lines(["*FAILED*test_validation_report_matches_snapshot*"])


def test_a_spec_stricter_than_the_signature_is_caught_by_type_corruptions(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        from typing import Any

        from harness_conformance import define_tool, s
        from harness_conformance.standard import ToolConformanceTests


        def echo(text: Any = None) -> str:
            return str(text)


        class TestEcho(ToolConformanceTests):
            tool = define_tool("echo", "Echo.", {"text": s.string(required=True)}, echo)
        """
    )
    result = pytester.runpytest("--snapshot-update")
    result.assert_outcomes(failed=1, passed=FIXED - 1 + len(corruption_kinds(pytester)))
    result.stdout.fnmatch_lines(["*FAILED*test_type_corruptions_fail_the_signature*"])


def test_a_spec_that_drifts_from_the_signature_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from harness_conformance import define_tool, s
        from harness_conformance.standard import ToolConformanceTests


        def scale(factor: int) -> int:
            return factor


        class TestScale(ToolConformanceTests):
            tool = define_tool("scale", "Scale.", {"factor": s.number(required=True)}, scale)
        """
    )
    result = pytester.runpytest("--snapshot-update")
    result.assert_outcomes(failed=1, passed=FIXED - 1 + len(corruption_kinds(pytester)))
    # The failure's own report, then the summary line: outside CI pytest shortens the
    # summary line, so the reason is looked for in the report.
    result.stdout.fnmatch_lines(
        [
            "*factor: expected int, got float*",
            "*FAILED*test_valid_args_fit_the_signature*",
        ]
    )


def test_a_tool_given_as_a_spec_skips_the_signature_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from harness_conformance import s
        from harness_conformance.standard import ToolConformanceTests


        class TestSpec(ToolConformanceTests):
            tool = s.params({"q": s.string(required=True, min_length=1)})
        """
    )
    result = pytester.runpytest("--snapshot-update", "-rs")
    result.assert_outcomes(skipped=2, passed=FIXED - 2 + len(corruption_kinds(pytester)))
    result.stdout.fnmatch_lines(["*no typed function signature*"])


# -- the collection check --------------------------------------------------------------


def test_overriding_a_standard_test_without_xfail_fails(pytester: pytest.Pytester) -> None:
    body = """
    def test_valid_args_are_accepted(self):
        pass
"""
    pytester.makepyfile(test_move=tool_suite(body))
    result = pytester.runpytest("--snapshot-update", "-k", "check or valid_args")
    result.assert_outcomes(failed=1, passed=3)
    result.stdout.fnmatch_lines(
        [
            "*test_move.py::TestMove::standard-suite-check*",
            "TestMove changes standard tests it inherits:",
            "  ToolConformanceTests.test_valid_args_are_accepted: overridden without "
            "pytest.mark.xfail(reason=...)",
            "*override the test in the subclass and mark the override*",
            '@pytest.mark.xfail(reason="why it fails").',
        ]
    )


def test_an_override_marked_xfail_with_a_reason_is_accepted(pytester: pytest.Pytester) -> None:
    body = """
    @pytest.mark.xfail(reason="the move tool cannot take these names yet")
    def test_valid_args_are_accepted(self):
        assert False, "known to fail"
"""
    pytester.makepyfile(test_move=tool_suite(body))
    result = pytester.runpytest("--snapshot-update")
    result.assert_outcomes(xfailed=1, passed=FIXED - 1 + len(corruption_kinds(pytester)))
    assert "standard-suite-check" not in result.stdout.str()


@pytest.mark.parametrize(
    "body",
    [
        '\n    @pytest.mark.xfail(reason="")\n    def test_valid_args_are_accepted(self):\n'
        "        pass\n",
        "\n    @pytest.mark.skip(reason='slow')\n    def test_valid_args_are_accepted(self):\n"
        "        pass\n",
    ],
    ids=["empty reason", "skip instead of xfail"],
)
def test_an_override_needs_xfail_with_a_non_empty_reason(
    pytester: pytest.Pytester, body: str
) -> None:
    pytester.makepyfile(test_move=tool_suite(body))
    result = pytester.runpytest("--snapshot-update", "-k", "check")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_valid_args_are_accepted: overridden without*"])


@pytest.mark.parametrize(
    "body",
    [
        "\n    test_oracle_accepts_valid_args = None\n",
        "\n\ndel ToolConformanceTests.test_oracle_accepts_valid_args\n",
    ],
    ids=["set to None", "removed from the suite"],
)
def test_deleting_a_standard_test_fails(pytester: pytest.Pytester, body: str) -> None:
    pytester.makepyfile(test_move=tool_suite(body))
    # In a subprocess: removing a test from the suite changes the suite's class itself.
    result = pytester.runpytest_subprocess("--snapshot-update", "-k", "check or oracle")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_move.py::TestMove::standard-suite-check*",
            "  ToolConformanceTests.test_oracle_accepts_valid_args: deleted",
            "*Restore a deleted test*",
        ]
    )


def test_marking_the_suite_itself_fails(pytester: pytest.Pytester) -> None:
    body = (
        "\n\npytest.mark.xfail(reason='everywhere')"
        "(ToolConformanceTests.test_valid_args_are_accepted)\n"
    )
    pytester.makepyfile(test_move=tool_suite(body))
    # In a subprocess: the mark changes the suite's own function.
    result = pytester.runpytest_subprocess("--snapshot-update", "-k", "check")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_valid_args_are_accepted: marked in the suite itself*"])


def test_a_deleted_session_test_fails_even_with_nothing_left_to_run(
    pytester: pytest.Pytester,
) -> None:
    write_cassette(pytester.path / "one.yaml")
    pytester.makepyfile(
        SESSION_SUITE.replace("CASSETTES", '"one.yaml"')
        + "    test_cassette_replays_without_violations = None\n"
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*SessionConformanceTests.test_cassette_replays_without_violations: deleted"]
    )


def test_the_suites_themselves_are_never_collected(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\npython_classes = *Tests Test*\n")
    write_cassette(pytester.path / "one.yaml")
    pytester.makepyfile(
        test_sessions=SESSION_SUITE.replace("CASSETTES", '"one.yaml"')
        + "\nfrom harness_conformance.standard import ToolConformanceTests\n"
    )
    result = pytester.runpytest("--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == [
        "test_sessions.py::TestSessions::test_cassette_replays_without_violations[one.yaml]"
    ]


# -- configuration errors ------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("pass", "*TestBad subclasses ToolConformanceTests but sets no tool: add `tool = *"),
        (
            'tool = s.params({"n": s.integer(required=True, minimum=5, maximum=1)})',
            '*TestBad.tool cannot be tested: no value satisfies this spec: "n" *',
        ),
        (
            'tool = ToolRegistry().register_raw("raw", "Raw.", {"type": "object"}, print)',
            '*TestBad.tool cannot be tested: tool "raw" is raw*',
        ),
    ],
    ids=["no tool", "unsatisfiable spec", "raw tool"],
)
def test_a_tool_the_suite_cannot_test_is_a_collection_error(
    pytester: pytest.Pytester, body: str, message: str
) -> None:
    pytester.makepyfile(
        f"""
        from harness_conformance import ToolRegistry, s
        from harness_conformance.standard import ToolConformanceTests


        class TestBad(ToolConformanceTests):
            {body}
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


@pytest.mark.parametrize(
    ("cassettes", "message"),
    [
        ("None", "*TestSessions subclasses SessionConformanceTests but sets no cassettes*"),
        ('"missing.yaml"', "*the cassette */missing.yaml does not exist*"),
        ('["empty"]', "*the folder */empty holds no cassette*"),
    ],
)
def test_cassettes_that_are_not_there_are_a_collection_error(
    pytester: pytest.Pytester, cassettes: str, message: str
) -> None:
    (pytester.path / "empty").mkdir()
    pytester.makepyfile(SESSION_SUITE.replace("CASSETTES", cassettes))
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


# -- session replays -----------------------------------------------------------------


def test_a_corrupt_cassette_fails_naming_the_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "broken.yaml").write_text("interactions: [\n")
    pytester.makepyfile(SESSION_SUITE.replace("CASSETTES", '["broken.yaml"]'))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteError*broken.yaml*"])


def test_violations_fail_the_cassette_listing_each_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = foreign_replay.replay_foreign
    seen: list[str] = []

    def with_violations(path: Any, *, profile: str = "strict") -> Any:
        seen.append(profile)
        replay = real(path, profile=profile)
        broken = Violation(rule="seq-contiguous", seq=3, message="seq jumps from 2 to 4")
        return _Replay(replay.path, replay.sessions, (broken,))

    monkeypatch.setattr(foreign_replay, "replay_foreign", with_violations)
    write_cassette(pytester.path / "one.yaml")
    pytester.makepyfile(SESSION_SUITE.replace("CASSETTES", '"one.yaml"'))
    result = pytester.runpytest("--hc-invariants=seed")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*one.yaml under 'seed':", "*seq-contiguous at seq 3: seq jumps from 2 to 4"]
    )
    assert seen == ["seed"]


class _Replay:
    def __init__(self, path: str, sessions: Any, violations: tuple[Violation, ...]) -> None:
        self.path, self.sessions, self.violations = path, sessions, violations


def test_invariants_off_skips_the_replay(pytester: pytest.Pytester) -> None:
    write_cassette(pytester.path / "one.yaml")
    pytester.makepyfile(
        "import pytest\n"
        + SESSION_SUITE.replace("CASSETTES", '"one.yaml"').replace(
            "class TestSessions",
            '@pytest.mark.hc_invariants("off", reason="not checked here")\nclass TestSessions',
        )
    )
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*the invariant profile is off*"])


# -- Hypothesis profiles ---------------------------------------------------------------


def test_the_plugin_registers_the_ci_and_dev_profiles(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from hypothesis import settings


        def test_profiles():
            assert settings.get_current_profile_name() == "ci"
            assert settings.default.derandomize
            assert settings.default.max_examples == 100
            assert settings.default.deadline is None
            assert settings.get_profile("dev").max_examples == 300
        """
    )
    result = pytester.runpytest_subprocess("--hypothesis-profile=ci")
    result.assert_outcomes(passed=1)


def test_a_profile_the_project_registered_is_kept(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from hypothesis import settings

        settings.register_profile("ci", max_examples=7)
        """
    )
    pytester.makepyfile(
        """
        from hypothesis import settings


        def test_profile():
            assert settings.default.max_examples == 7
            assert settings.get_profile("dev").max_examples == 300
        """
    )
    result = pytester.runpytest_subprocess("--hypothesis-profile=ci")
    result.assert_outcomes(passed=1)


# -- the guide -------------------------------------------------------------------------

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "standard-suites.md"
XFAIL_LINE = (
    '    @pytest.mark.xfail(reason="the published schema says number; the body takes int")\n'
)


def guide_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_runs_as_a_downstream_project_and_shows_real_output(
    pytester: pytest.Pytester,
) -> None:
    python, text = guide_blocks("python"), guide_blocks("text")
    module = "\n\n".join(python)
    assert XFAIL_LINE in module
    write_cassette(pytester.path / "cassettes" / "hello.yaml")
    pytester.makepyfile(test_guide=module)
    outcomes = pytester.runpytest("--snapshot-update").parseoutcomes()
    assert outcomes.get("xfailed") == 1
    assert "failed" not in outcomes
    assert "errors" not in outcomes
    assert outcomes["passed"] > 2 * FIXED

    namespace: dict[str, Any] = {"__name__": "guide"}
    exec(compile(python[0], str(GUIDE), "exec"), namespace)
    assert text[0] == validation_report(namespace["read_file"]).render()

    rewrite_module(pytester, test_guide=module.replace(XFAIL_LINE, ""))
    result = pytester.runpytest("-k", "TestLookup and check")
    result.assert_outcomes(failed=1)
    assert text[1] in result.stdout.str() + "\n"

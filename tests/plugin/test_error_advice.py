"""Every cassette error the plugin reports advises only options, ini keys, markers and
marker arguments that exist: each test provokes one message and checks each ``--hc-*``,
``hc_*`` and ``hc_cassette(<argument>=`` it names against ``pytest --help`` and
``pytest --markers``; the advised ``hc_volatile`` and ``hc_secret_env`` then work."""

from __future__ import annotations

import re

import pytest
from _plugin_project import (
    RECORD,
    add_script,
    files_holding,
    recording,
    replaying,
    rewrite_module,
    session_test,
    write_ini,
)

from harness_conformance.server import TextResponse

_OPTION = re.compile(r"--hc-[a-z-]+")
_NAME = re.compile(r"(?<![\w.-])hc_[a-z_]+")
_ARGUMENT = re.compile(r"hc_cassette\((\w+)=")

SERVICE_TOKEN = "ghp_" + "Q7m2Xk9Lp4Rt8Vw1Yz3Bn6Cd0Fg5Hj2Ks7Ma"
"""A token of another service, echoed by the model: not one of the keys always scrubbed."""

ECHO_TEST = """
import asyncio

import pytest

from harness_conformance import Agent


async def converse(model, replay_session):
    async with model:
        return await replay_session(Agent(model), ["what is my token?"])


MARKERS
def test_echo(hc_model, replay_session):
    assert asyncio.run(converse(hc_model, replay_session)).ok
"""


def check_advice(pytester: pytest.Pytester, output: str) -> set[str]:
    """Assert that everything ``output`` advises exists; return what it named."""
    help_text = pytester.runpytest("--help").stdout.str()
    markers = pytester.runpytest("--markers").stdout.str()
    [cassette_marker] = [line for line in markers.splitlines() if "mark.hc_cassette(" in line]
    named = set(_OPTION.findall(output)) | set(_NAME.findall(output))
    for token in sorted(named):
        assert token in help_text or f"@pytest.mark.{token}(" in markers, token
    for argument in sorted(set(_ARGUMENT.findall(output))):
        assert f"{argument}=" in cassette_marker, argument
        named.add(f"hc_cassette({argument}=")
    return named


def record_add(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, **ini: str) -> None:
    pytester.makepyfile(test_agent=session_test(["add 2 and 3"]))
    with recording(pytester, monkeypatch, add_script(), **ini):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)


@pytest.mark.slow
def test_a_mismatch_advises_rewrite_or_the_volatile_settings_that_exist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_add(pytester, monkeypatch)
    rewrite_module(pytester, test_agent=session_test(["add 3 and 2"]))
    replaying(monkeypatch)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "declare it volatile" not in output
    named = check_advice(pytester, output)
    assert {"--hc-record-mode", "hc_volatile", "hc_cassette(volatile="} <= named


@pytest.mark.parametrize(
    ("marker", "ini"),
    [
        ('@pytest.mark.hc_cassette(volatile=["messages[0].content"])', {}),
        ("", {"hc_volatile": "\n    messages[0].content"}),
    ],
    ids=["marker", "ini"],
)
def test_a_volatile_path_is_left_out_of_matching(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, marker: str, ini: dict[str, str]
) -> None:
    record_add(pytester, monkeypatch)
    markers = [marker] if marker else []
    rewrite_module(pytester, test_agent=session_test(["add 3 and 2"], markers=markers))
    write_ini(pytester, "http://127.0.0.1:9/v1", **ini)
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_bad_volatile_path_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_add(pytester, monkeypatch)
    write_ini(pytester, "http://127.0.0.1:9/v1", hc_volatile="messages[*]")
    replaying(monkeypatch)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*test_session: hc_volatile / volatile=: bad volatile path 'messages*': it must end*"]
    )


@pytest.mark.slow
def test_another_base_url_is_named_with_the_settings_that_set_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_add(pytester, monkeypatch)
    write_ini(pytester, "http://localhost:9/v1")
    replaying(monkeypatch)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the base URL differs from the recording: this request went to"
            " localhost/v1/chat/completions, the recording was made against"
            " 127.0.0.1/v1/chat/completions; replay with the base URL it was recorded with"
            " (--hc-base-url or the hc_base_url ini key*"
        ]
    )
    named = check_advice(pytester, result.stdout.str())
    assert {"--hc-base-url", "hc_base_url"} <= named


def test_unplayed_interactions_advise_what_exists_and_name_the_new_episodes_trap(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Recorded with two prompts; the changed test asks one, so one answer stays unplayed.
    pytester.makepyfile(test_agent=session_test(["hi", "bye"], results=[], text="bye!"))
    script = [TextResponse("hello!"), TextResponse("bye!")]
    with recording(pytester, monkeypatch, script):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    rewrite_module(pytester, test_agent=session_test(["hi"], results=[], text="hello!"))
    replaying(monkeypatch)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*a cassette extended with --hc-record-mode=new_episodes keeps the interactions"
            " that changed requests no longer play, so it fails this way on the next replay;"
            " rewrite re-records it from scratch",
            "CassetteError CASSETTE_UNUSED",
        ]
    )
    named = check_advice(pytester, result.stdout.str())
    assert {"--hc-record-mode", "hc_allow_unused"} <= named


@pytest.mark.slow
@pytest.mark.parametrize("workers", [(), ("-p", "xdist", "-n", "1")], ids=["serial", "xdist"])
def test_new_episodes_names_the_failure_the_next_replay_will_have(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...]
) -> None:
    record_add(pytester, monkeypatch)
    rewrite_module(pytester, test_agent=session_test(["add 3 and 2"]))
    with recording(pytester, monkeypatch, add_script(3, 2)):
        result = pytester.runpytest_subprocess("--hc-record-mode=new_episodes", *workers)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*harness-conformance: cassettes that fail their next replay*",
            "test_agent.py::test_session: cassette *test_session.yaml: 2 of 4 recorded"
            " interactions were never played; the next replay fails with CASSETTE_UNUSED:"
            " re-record it with --hc-record-mode=rewrite (pass --hc-strict-cassettes to fail"
            " such a recording at once)",
        ]
    )
    check_advice(pytester, result.stdout.str())
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(failed=1)


def test_a_clean_new_episodes_run_lists_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_add(pytester, monkeypatch)
    with recording(pytester, monkeypatch, []):
        result = pytester.runpytest("--hc-record-mode=new_episodes")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*cassettes that fail their next replay*")


def test_a_secret_refusal_advises_the_secret_env_settings_and_they_work(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", SERVICE_TOKEN)
    pytester.makepyfile(test_echo=ECHO_TEST.replace("MARKERS\n", ""))
    reply = [TextResponse(f"your token is {SERVICE_TOKEN}")]
    with recording(pytester, monkeypatch, reply):
        result = pytester.runpytest(RECORD)
    # The refusal fails the test's call phase; nothing is saved at teardown.
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "CASSETTE_SECRET" in output
    named = check_advice(pytester, output)
    assert {"hc_secret_env", "hc_cassette(secret_env="} <= named
    assert files_holding(pytester.path, SERVICE_TOKEN) == []

    marker = '@pytest.mark.hc_cassette(secret_env=["SERVICE_TOKEN"])\n'
    rewrite_module(pytester, test_echo=ECHO_TEST.replace("MARKERS\n", marker))
    with recording(pytester, monkeypatch, reply):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    assert files_holding(pytester.path, SERVICE_TOKEN) == []

"""``--hc-record-mode`` and the ``hc_record_mode`` ini key: what records, what replays,
CI forcing ``none``, and ``rewrite`` keeping the previous cassette when it fails."""

from __future__ import annotations

import pytest
from _plugin_project import (
    RECORD,
    add_script,
    cassette_files,
    interactions,
    recording,
    replaying,
    rewrite_module,
    session_test,
    write_ini,
)

from harness_conformance.cassettes import sse_items

CASSETTE = ("fixtures", "cassettes", "test_agent", "test_session.yaml")
NEW_TEXT = "Sum: 5."


def record(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> bytes:
    pytester.makepyfile(test_agent=session_test())
    with recording(pytester, monkeypatch, add_script()):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    return pytester.path.joinpath(*CASSETTE).read_bytes()


def final_texts(pytester: pytest.Pytester) -> list[str]:
    """The content of the last SSE event with content in each stored response."""
    (path,) = cassette_files(pytester.path)
    texts = []
    for interaction in interactions(path):
        pieces = [
            choice["delta"].get("content") or ""
            for event in (sse_items(interaction["response"]["body"]["sse"]) or ([], "", ""))[0]
            for choice in (event.get("data") or {}).get("choices", ())
        ]
        texts.append("".join(pieces))
    return texts


def test_rewrite_records_the_cassette_again(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = record(pytester, monkeypatch)
    assert final_texts(pytester) == ["", "The sum is 5."]
    rewrite_module(pytester, test_agent=session_test(text=NEW_TEXT))
    with recording(pytester, monkeypatch, add_script(text=NEW_TEXT)) as server:
        pytester.runpytest("--hc-record-mode=rewrite").assert_outcomes(passed=1)
    server.assert_consumed()
    assert pytester.path.joinpath(*CASSETTE).read_bytes() != before
    assert final_texts(pytester) == ["", NEW_TEXT]
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_failing_rewrite_leaves_the_previous_cassette(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = record(pytester, monkeypatch)
    # The test still expects the old text, so it fails after re-recording.
    with recording(pytester, monkeypatch, add_script(text=NEW_TEXT)) as server:
        result = pytester.runpytest("--hc-record-mode=rewrite")
    result.assert_outcomes(failed=1)
    server.assert_consumed()
    assert pytester.path.joinpath(*CASSETTE).read_bytes() == before
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_failing_first_recording_still_saves_what_it_recorded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test(text="something else"))
    with recording(pytester, monkeypatch, add_script()):
        pytester.runpytest(RECORD).assert_outcomes(failed=1)
    assert final_texts(pytester) == ["", "The sum is 5."]
    rewrite_module(pytester, test_agent=session_test())
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=1)


CRASHING_CONFTEST = """
import os

import pytest


@pytest.fixture(autouse=True)
def crash_on_rename(monkeypatch):
    def crash(source, target):
        raise OSError("the disk went away while renaming")

    monkeypatch.setattr(os, "replace", crash)
"""


@pytest.mark.slow
def test_a_crash_while_saving_leaves_the_previous_cassette(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = record(pytester, monkeypatch)
    pytester.makeconftest(CRASHING_CONFTEST)
    pytester.makepyfile(test_agent=session_test(text=NEW_TEXT))
    with recording(pytester, monkeypatch, add_script(text=NEW_TEXT)):
        result = pytester.runpytest("--hc-record-mode=rewrite")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*OSError: the disk went away while renaming"])
    folder = pytester.path.joinpath(*CASSETTE[:-1])
    assert [p.name for p in folder.iterdir()] == [CASSETTE[-1]]
    assert pytester.path.joinpath(*CASSETTE).read_bytes() == before


@pytest.mark.slow
@pytest.mark.parametrize("ci", [None, "true"])
def test_without_a_mode_nothing_records_and_a_missing_cassette_says_how_to_record(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None
) -> None:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makepyfile(test_agent=session_test())
    with recording(pytester, monkeypatch, add_script()) as server:
        result = pytester.runpytest()
    assert server.requests == []
    assert cassette_files(pytester.path) == []
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: cassette *test_agent*test_session.yaml does not exist, and record"
            " mode 'none' replays only, so POST 127.0.0.1/v1/chat/completions has no recorded"
            " answer; record it by running once with --hc-record-mode=once and the provider's"
            " API key in the environment",
            "*CassetteError CASSETTE_MISSING",
        ]
    )


@pytest.mark.slow
def test_the_ini_mode_records_unless_ci_is_set(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test())
    monkeypatch.setenv("CI", "true")
    with recording(pytester, monkeypatch, add_script(), hc_record_mode="once") as server:
        pytester.runpytest().assert_outcomes(failed=1)
    assert server.requests == []

    monkeypatch.delenv("CI")
    with recording(pytester, monkeypatch, add_script(), hc_record_mode="once") as server:
        pytester.runpytest().assert_outcomes(passed=1)
    server.assert_consumed()
    assert len(cassette_files(pytester.path)) == 1


def test_an_unknown_ini_mode_is_refused(pytester: pytest.Pytester) -> None:
    write_ini(pytester, "http://127.0.0.1:9/v1", hc_record_mode="sometimes")
    pytester.makepyfile(test_agent=session_test())
    result = pytester.runpytest()
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*unknown record mode 'sometimes'; valid modes are: none, once*"])

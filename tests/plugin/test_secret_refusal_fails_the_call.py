"""A recording whose save a secret-looking token would refuse fails the test's call
phase with ``CASSETTE_SECRET`` (the file and the line), is reported as one failure with
no teardown error, and writes nothing."""

from __future__ import annotations

import pytest
from _plugin_project import RECORD, cassette_files, interactions, recording

from harness_conformance.server import TextResponse

# An undeclared Groq-shaped key, assembled so this file holds no key-shaped text.
UNDECLARED = "gsk" + "_" + "Qp4Lm8Zr2Tx6Wc1Vb9Nh3Jd7Ks5Fg0Ya2Ue6Io4Rt8Hy1Mn3Bq"

ECHO_TEST = """
import asyncio

from harness_conformance import Agent


def test_echo(hc_model):
    async def converse():
        async with hc_model:
            return await Agent(hc_model).run("say something")

    result = asyncio.run(converse())
    assert result.reason["kind"] == "completed"
"""


@pytest.mark.parametrize("mode", ["once", "new_episodes", "all", "rewrite"])
def test_a_refused_save_fails_the_call_and_writes_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    pytester.makepyfile(test_echo=ECHO_TEST)
    with recording(pytester, monkeypatch, [TextResponse(f"here it is: {UNDECLARED}")]):
        result = pytester.runpytest(f"--hc-record-mode={mode}", "-rA", "-vv")
    result.assert_outcomes(failed=1)
    [failed] = [line for line in result.outlines if line.startswith("FAILED ")]
    assert failed.startswith("FAILED test_echo.py::test_echo - ")
    assert "CassetteError CASSETTE_SECRET: refusing " in failed
    output = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "E * refusing to write cassette *test_echo.yaml: *a Groq API key*(line *, column *)*",
            "E * CassetteError CASSETTE_SECRET",
        ]
    )
    assert "ERROR at teardown" not in output
    assert cassette_files(pytester.path) == []


def test_a_clean_recording_still_passes_and_saves(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_echo=ECHO_TEST)
    with recording(pytester, monkeypatch, [TextResponse("nothing secret here")]):
        result = pytester.runpytest(RECORD)
    result.assert_outcomes(passed=1)
    [path] = cassette_files(pytester.path)
    assert len(interactions(path)) == 1

"""The plugin's hooks, implemented in a downstream ``conftest.py``:
``pytest_hc_normalize_tool_result`` rewrites the tool results ``replay_session`` reports, and
``pytest_hc_configure_vcr`` adjusts the VCR without being able to turn scrubbing off.

pytest registers a conftest function as a hook implementation only when its name starts
with ``pytest_``, so the hooks are implemented as ``pytest_hc_*``.
"""

from __future__ import annotations

import json

import pytest
from _plugin_project import (
    RECORD,
    SENTINEL,
    add_script,
    cassette_files,
    files_holding,
    interactions,
    recording,
    replaying,
    session_test,
)

NORMALIZING_CONFTEST = """
from dataclasses import replace


def pytest_hc_normalize_tool_result(result, item):
    if result.name == "add":
        return replace(result, content=f"<sum in {item.name}>")
    return None
"""


def test_the_normalize_hook_replaces_the_tool_results_replay_reports(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test(results=["<sum in test_session>"]))
    with recording(pytester, monkeypatch, add_script()):
        result = pytester.runpytest(RECORD)
    # Without the hook the test sees the real tool output.
    result.assert_outcomes(failed=1)
    assert "AssertionError: assert ['5'] == ['<sum in test_session>']" in result.stdout.str()

    pytester.makeconftest(NORMALIZING_CONFTEST)
    replaying(monkeypatch)
    # The model was sent the real output, so the recording still matches.
    pytester.runpytest().assert_outcomes(passed=1)


CONFIGURING_CONFTEST = """
from vcr.persisters.filesystem import FilesystemPersister


def pytest_hc_configure_vcr(vcr, item):
    def rename(request):
        request.body = request.body.replace(b"add 2 and 3", b"add two and three")
        return request

    # None of this may switch off the format, the header filter or scrubbing.
    vcr.before_record_request = rename
    vcr.filter_headers = ()
    vcr.serializer = "yaml"
    vcr.register_persister(FilesystemPersister)
"""

KEY_IN_PROMPT_TEST = """
import asyncio
import os

from harness_conformance import Agent, tool


@tool
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b


async def converse(model, replay_session, prompt):
    async with model:
        return await replay_session(Agent(model, [add]), [prompt])


def test_session(hc_model, replay_session):
    prompt = "add 2 and 3 with key " + os.environ["DEEPSEEK_API_KEY"]
    run = asyncio.run(converse(hc_model, replay_session, prompt))
    assert run.ok
"""


def test_the_configure_hook_adjusts_the_vcr_and_scrubbing_still_applies(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest(CONFIGURING_CONFTEST)
    pytester.makepyfile(test_agent=KEY_IN_PROMPT_TEST)
    with recording(pytester, monkeypatch, add_script()):
        result = pytester.runpytest(RECORD)
    result.assert_outcomes(passed=1)
    assert files_holding(pytester.path, SENTINEL) == []
    (path,) = cassette_files(pytester.path)
    first = json.loads(interactions(path)[0]["request"]["body"]["json"])
    assert first["messages"][0]["content"] == "add two and three with key <redacted>"

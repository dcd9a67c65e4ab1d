"""A cassette error that an SDK wraps in its own exception still names the failure: the
report's crash line, which pytest's short summary and JUnit XML show, leads with
``CassetteError <CODE>`` and its message and says which exception carried it, so a changed
prompt under the anthropic SDK reads ``CASSETTE_MISMATCH``, not ``Connection error.``"""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from _plugin_project import RECORD, SENTINEL

from harness_conformance.server import LoopbackModelServer, TextResponse

SDK_TEST = """
import os

import anthropic
import pytest


@pytest.mark.hc_cassette
def test_sdk(request):
    client = anthropic.Anthropic(
        api_key=os.environ.get("ANTHROPIC_API_KEY", "unused"),
        base_url=request.config.getini("hc_base_url"),
        max_retries=0,
    )
    client.messages.create(
        model="claude-test",
        max_tokens=16,
        messages=[{"role": "user", "content": os.environ["PROMPT"]}],
    )
"""


def test_a_changed_prompt_under_the_anthropic_sdk_names_the_mismatch(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_sdk=SDK_TEST)
    monkeypatch.setenv("PROMPT", "What is 2 + 3?")
    with LoopbackModelServer([TextResponse("5")]) as server:
        root = server.base_url.removesuffix("/v1")  # the SDK adds /v1/messages itself
        pytester.makeini(f"[pytest]\nhc_base_url = {root}\n")
        monkeypatch.setenv("ANTHROPIC_API_KEY", SENTINEL)
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
        monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PROMPT", "What is 2 + 4?")
    result = pytester.runpytest("-rf", "-vv", "-p", "no:cacheprovider")  # summary not cut
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_sdk.py::test_sdk - harness_conformance.CassetteError "
            "CASSETTE_MISMATCH: *(carried by anthropic.APIConnectionError: Connection error.)",
        ]
    )


WRAPPING_TESTS = """
import pytest

from harness_conformance.errors import CassetteError


class ClientError(Exception):
    pass


def blocked():
    message = "network blocked: connecting to example.invalid:443\\nmore"
    return CassetteError(message, code="NETWORK_BLOCKED")


def test_wrapped_as_cause():
    raise ClientError("Connection error.") from blocked()


def test_wrapped_as_context():
    try:
        raise blocked()
    except CassetteError:
        raise RuntimeError("the model call failed")


def test_plain_cassette_error():
    raise blocked()


def test_unrelated():
    assert 1 == 2
"""


def test_the_crash_line_names_any_carried_cassette_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_wrapping=WRAPPING_TESTS)
    result = pytester.runpytest(
        "-rf",
        "-vv",
        "-p",
        "no:cacheprovider",
        "--junitxml=report.xml",  # -vv: summary not cut
    )
    result.assert_outcomes(failed=4)
    failures = {
        case.get("name"): case.find("failure").get("message")  # type: ignore[union-attr]
        for case in ElementTree.parse(pytester.path / "report.xml").iter("testcase")
    }
    assert str(failures["test_wrapped_as_cause"]).startswith(
        "harness_conformance.CassetteError NETWORK_BLOCKED: network blocked: connecting to"
    )
    result.stdout.fnmatch_lines_random(
        [
            "FAILED test_wrapping.py::test_wrapped_as_cause - harness_conformance.CassetteError"
            " NETWORK_BLOCKED: network blocked: connecting to example.invalid:443 (carried by"
            " test_wrapping.ClientError: Connection error.)",
            "FAILED test_wrapping.py::test_wrapped_as_context - harness_conformance.CassetteError"
            " NETWORK_BLOCKED: network blocked: * (carried by RuntimeError: the model call failed)",
            "FAILED test_wrapping.py::test_plain_cassette_error - "
            "harness_conformance.CassetteError NETWORK_BLOCKED: network blocked: *",
            "FAILED test_wrapping.py::test_unrelated - assert 1 == 2",
        ]
    )

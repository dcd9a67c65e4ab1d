"""The ``hc_base_url`` fixture: the base URL for the SDK of a named wire format, from
``--hc-base-url`` before the ``hc_base_url`` ini key before the provider's default, with
each SDK's own root (the anthropic SDK and google-genai add their version path)."""

from __future__ import annotations

import pytest

TEST_FILE = """
import os


def test_urls(hc_base_url):
    expected = os.environ["EXPECTED"]
    assert hc_base_url() == expected + "/v1"
    assert hc_base_url("openai-chat") == expected + "/v1"
    assert hc_base_url("openai-responses") == expected + "/v1"
    assert hc_base_url("anthropic-messages") == expected
    assert hc_base_url("gemini") == expected
"""

DEFAULTS = """
def test_defaults(hc_base_url):
    assert hc_base_url() == "https://api.deepseek.com"
    assert hc_base_url("anthropic-messages") == "https://api.anthropic.com"
    assert hc_base_url("gemini") == "https://generativelanguage.googleapis.com"
"""


@pytest.mark.parametrize("where", ["ini", "command line"])
def test_the_command_line_wins_over_the_ini(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    pytester.makepyfile(test_urls=TEST_FILE)
    pytester.makeini("[pytest]\nhc_base_url = http://ini.test/v1\n")
    args = ["--hc-base-url=http://cli.test/v1"] if where == "command line" else []
    monkeypatch.setenv("EXPECTED", "http://cli.test" if args else "http://ini.test")
    pytester.runpytest(*args).assert_outcomes(passed=1)


def test_without_either_the_providers_default(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_defaults=DEFAULTS)
    pytester.runpytest().assert_outcomes(passed=1)

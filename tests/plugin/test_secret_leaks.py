"""A recording whose reply echoes the API key: the key reaches no file and no output.

The server streams text a few characters per delta, so an echoed key arrives cut
across events. The declared key is replaced piece by piece; an undeclared key-shaped
token refuses the save, and the refusal's traceback, printed with every frame's
arguments and locals, still does not show the declared key.
"""

from __future__ import annotations

import pytest
from _plugin_project import SENTINEL, cassette_files, files_holding, interactions, recording

from harness_conformance.cassettes import sse_items
from harness_conformance.server import TextResponse

# An undeclared Groq-shaped key, assembled so this file holds no key-shaped text.
UNDECLARED = "gsk" + "_" + "Zx8Qw3Er6Ty9Ui2Op5As7Df1Gh4Jk0Lz8Xc3Vb6Nm9Qa2Ws5Ed"

ECHO_TEST = """
import asyncio

from harness_conformance import Agent


def test_echo(hc_model):
    async def converse():
        async with hc_model:
            return await Agent(hc_model).run("repeat my key")

    result = asyncio.run(converse())
    assert result.reason["kind"] == "completed"
"""


def reassembled(pytester: pytest.Pytester) -> str:
    (path,) = cassette_files(pytester.path)
    [interaction] = interactions(path)
    return "".join(
        choice["delta"].get("content") or ""
        for event in (sse_items(interaction["response"]["body"]["sse"]) or ([], "", ""))[0]
        for choice in (event.get("data") or {}).get("choices", ())
    )


@pytest.mark.parametrize("piece", [3, 4, 7])
def test_a_key_echoed_across_deltas_is_replaced_in_the_stream(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    pytester.makepyfile(test_echo=ECHO_TEST)
    reply = TextResponse(f"your key is {SENTINEL}, keep it safe", piece=piece)
    with recording(pytester, monkeypatch, [reply]):
        result = pytester.runpytest("--hc-record-mode=once")
    result.assert_outcomes(passed=1)
    assert reassembled(pytester) == "your key is <redacted>, keep it safe"
    assert files_holding(pytester.path, SENTINEL) == []
    (path,) = cassette_files(pytester.path)
    text = path.read_text(encoding="utf-8")
    assert SENTINEL[:12] not in text
    assert SENTINEL[-12:] not in text


@pytest.mark.parametrize("piece", [4, 500])
def test_a_refused_save_prints_no_declared_key_even_with_showlocals(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    pytester.makepyfile(test_echo=ECHO_TEST)
    reply = TextResponse(f"{SENTINEL} and {UNDECLARED}", piece=piece)
    with recording(pytester, monkeypatch, [reply]):
        result = pytester.runpytest("--hc-record-mode=once", "--tb=long", "--showlocals", "-vv")
    output = result.stdout.str() + result.stderr.str()
    assert "CASSETTE_SECRET" in output
    assert "Groq API key" in output
    assert SENTINEL not in output
    assert SENTINEL[-16:] not in output
    assert cassette_files(pytester.path) == []
    assert files_holding(pytester.path, SENTINEL) == []

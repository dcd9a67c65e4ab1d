"""Small downstream projects for the plugin tests.

`session_test` writes a test that replays an agent session through the plugin's
fixtures (``hc_model``, ``replay_session``); `recording` points the ini at a
`LoopbackModelServer` that the outer test starts and stops, and sets a sentinel API key
that must never reach a file. `profile_test` writes a test that shows which invariant
profile ``replay_session`` checked with. `rewrite_module` gives a module that an earlier
run imported new text.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
import anyio._backends._asyncio
import google.genai
import google.genai.types
import h11
import httpcore2
import httpcore2._backends.anyio
import httpcore2._backends.auto
import openai.resources.chat.completions
import openai.resources.responses
import pytest
import vcr.stubs.httpx_stubs  # type: ignore[import-untyped]
import yaml

import harness_conformance.cassettes
import harness_conformance.chaos
import harness_conformance.plugin._chaos
import harness_conformance.replay
from harness_conformance.server import LoopbackModelServer, TextResponse, ToolCallsResponse

# In-process pytester runs drop every module first imported inside them, so without
# these imports each downstream run would import the SDKs and vcrpy again, and a later
# test would meet two copies of the HTTP stack's exception classes (a timeout raised by
# one copy is not caught as the other's).
PRELOADED = (
    anyio._backends._asyncio,
    h11,
    httpcore2,
    httpcore2._backends.anyio,
    httpcore2._backends.auto,
    openai.resources.chat.completions,
    openai.resources.responses,
    anthropic,
    google.genai,
    google.genai.types,
    vcr.stubs.httpx_stubs,
    harness_conformance,
    harness_conformance.chaos,
    harness_conformance.plugin._chaos,
)

SENTINEL = "sk-sentinel-" + "7f3a9c1e5b2d8f4a6c0e9b1d"
"""The API key of recording runs: it must appear in no file of the project."""

RECORD = "--hc-record-mode=once"

SESSION_TEST = '''
import asyncio

import pytest

from harness_conformance import Agent, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def converse(model, replay_session, prompts):
    async with model:
        return await replay_session(Agent(model, [add]), prompts)


MARKERS
def test_session(hc_model, replay_session):
    run = asyncio.run(converse(hc_model, replay_session, PROMPTS))
    assert run.violations == ()
    assert run.ok
    assert [result.content for result in run.tool_results] == RESULTS
    assert run.text == TEXT
'''


def session_test(
    prompts: Sequence[str] = ("add 2 and 3",),
    *,
    results: Sequence[str] = ("5",),
    text: str = "The sum is 5.",
    markers: Sequence[str] = (),
) -> str:
    """A test module whose ``test_session`` replays ``prompts`` and checks the outcome."""
    return (
        SESSION_TEST.replace("MARKERS\n", "".join(f"{m}\n" for m in markers))
        .replace("PROMPTS", repr(list(prompts)))
        .replace("RESULTS", repr(list(results)))
        .replace("TEXT", repr(text))
    )


def rewrite_module(pytester: pytest.Pytester, **modules: str) -> None:
    """Give modules of the project new text and remove their cached bytecode.

    pytest before 9.2 trusts a cached assertion-rewritten module whose source has the
    same size and the same modification time in whole seconds, so new text of the same
    size written within a second of the last run would run as the old text.
    """
    pytester.makepyfile(**modules)
    for name in modules:
        source = pytester.path / f"{name}.py"
        cache = Path(importlib.util.cache_from_source(str(source))).parent
        for stale in cache.glob(f"{name}.*.pyc"):
            stale.unlink()


def add_script(a: int = 2, b: int = 3, text: str = "The sum is 5.") -> list[Any]:
    """The server's answers to one ``add`` prompt: a tool call, then the final text."""
    arguments = json.dumps({"a": a, "b": b})
    return [ToolCallsResponse([("call_1", "add", arguments)]), TextResponse(text)]


def write_ini(pytester: pytest.Pytester, base_url: str, **keys: str) -> None:
    """The project's ini: ``hc_base_url`` and any other ``hc_*`` keys."""
    lines = ["[pytest]", f"hc_base_url = {base_url}"]
    lines += [f"{key} = {value}" for key, value in keys.items()]
    pytester.makeini("\n".join(lines) + "\n")


@contextmanager
def recording(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    script: Sequence[Any],
    **ini: str,
) -> Iterator[LoopbackModelServer]:
    """A running server for ``script``, the ini pointing at it and the sentinel key set;
    the server is stopped and the key removed when the block ends."""
    with LoopbackModelServer(script) as server:
        write_ini(pytester, server.base_url, **ini)
        monkeypatch.setenv("DEEPSEEK_API_KEY", SENTINEL)
        try:
            yield server
        finally:
            monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)


def replaying(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI is set and no API key is around: only cassettes can answer."""
    monkeypatch.setenv("CI", "true")
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def cassette_files(root: Path) -> list[Path]:
    """Every cassette written under ``root``, sorted."""
    return sorted(path for path in root.rglob("*.yaml") if ".pytest_cache" not in path.parts)


def interactions(path: Path) -> list[dict[str, Any]]:
    """The stored interactions of one cassette."""
    stored = yaml.safe_load(path.read_text(encoding="utf-8"))
    return list(stored["interactions"])


def files_holding(root: Path, needle: str) -> list[Path]:
    """Every file under ``root`` whose bytes contain ``needle``."""
    data = needle.encode("utf-8")
    return [path for path in root.rglob("*") if path.is_file() and data in path.read_bytes()]


PROFILE_TEST = """
import asyncio

import pytest

from harness_conformance import Agent, ScriptedModel
from harness_conformance.models import text_reply

# What each profile reports for a session the checker joins at its second turn: strict
# wants seq to start at 0 and turns to count from 1, seed does not.
RULES = {"strict": ["seq-contiguous", "turn-numbering"], "seed": [], "off": []}


MARKERS
def test_profile(invariants, replay_session):
    agent = Agent(ScriptedModel([text_reply("one"), text_reply("two")]))
    agent.run_sync("first")
    run = asyncio.run(replay_session(agent, ["second"]))
    assert sorted({violation.rule for violation in run.violations}) == RULES[PROFILE]
    assert invariants == PROFILE
"""


def profile_test(profile: str, *markers: str) -> str:
    """A test asserting that its profile is ``profile`` and that ``replay_session``
    checked with it; no model traffic, so no cassette is needed."""
    return PROFILE_TEST.replace("MARKERS\n", "".join(f"{m}\n" for m in markers)).replace(
        "PROFILE", repr(profile)
    )

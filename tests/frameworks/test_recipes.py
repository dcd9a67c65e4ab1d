"""The recipes of docs/frameworks.md, run as a downstream project runs them.

Each recipe under ``recipes/`` is the test module a user of one agent framework would
write. Here each one is copied into a pytester project, recorded against a
`LoopbackModelServer` with a sentinel API key, and replayed with the server gone under
``CI`` and ``--hc-block-network``; then a changed prompt must fail the test with
``CASSETTE_MISMATCH`` on its ``FAILED`` line, and a recorded tool call that breaks the
tool's schema must be caught by checked replay. A stack whose framework is not
installed is skipped (``tox -e frameworks`` installs them all). The runs are
subprocesses, since the frameworks keep process-wide state (clients, event loops,
tracing) that in-process runs would share.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness_conformance.server import (
    LoopbackModelServer,
    RecordedRequest,
    TextResponse,
    ToolCallsResponse,
)

RECIPES = Path(__file__).parent / "recipes"

SENTINEL = "sk-sentinel-" + "4b8e2d6f0a1c3e5b7d9f2a4c"
"""The API key of recording runs: it must appear in no file of the project."""

PROMPT_LINE = 'PROMPT = "What is the weather in Paris?"'
# Of another length, so that pytest does not reuse the bytecode it cached of the old text.
CHANGED_PROMPT_LINE = 'PROMPT = "And what is the weather in Lyon?"'

CALL_ID = "call_weather_1"
FINAL_TEXT = "It is sunny and 21 degrees in Paris."
VALID_ARGS = {"town": "Paris"}
INVALID_ARGS = {"town": "Atlantis"}

REPLAY = ("-rA", "-vv", "-p", "no:cacheprovider", "--hc-block-network")


@dataclass(frozen=True)
class Stack:
    """One framework recipe and what it needs."""

    recipe: str
    """The recipe's file name under ``recipes/``."""
    modules: tuple[str, ...]
    """Modules the recipe imports that the main test environment may lack."""
    path: str
    """The path of the wire format the stack must use on the server."""
    key: str
    """The environment variable the recipe reads its API key from."""


STACKS = {
    "openai": Stack("recipe_openai.py", ("openai",), "/v1/chat/completions", "OPENAI_API_KEY"),
    "anthropic": Stack("recipe_anthropic.py", ("anthropic",), "/v1/messages", "ANTHROPIC_API_KEY"),
    "google-genai": Stack(
        "recipe_google_genai.py", ("google.genai",), ":generateContent", "GEMINI_API_KEY"
    ),
    "pydantic-ai-openai": Stack(
        "recipe_pydantic_ai_openai.py",
        ("pydantic_ai", "openai"),
        "/v1/chat/completions",
        "OPENAI_API_KEY",
    ),
    "pydantic-ai-anthropic": Stack(
        "recipe_pydantic_ai_anthropic.py",
        ("pydantic_ai", "anthropic"),
        "/v1/messages",
        "ANTHROPIC_API_KEY",
    ),
    "openai-agents-responses": Stack(
        "recipe_openai_agents_responses.py", ("agents",), "/v1/responses", "OPENAI_API_KEY"
    ),
    "openai-agents-chat": Stack(
        "recipe_openai_agents_chat.py", ("agents",), "/v1/chat/completions", "OPENAI_API_KEY"
    ),
    "langgraph": Stack(
        "recipe_langgraph.py",
        ("langchain_openai", "langgraph"),
        "/v1/chat/completions",
        "OPENAI_API_KEY",
    ),
    "litellm": Stack("recipe_litellm.py", ("litellm",), "/v1/chat/completions", "OPENAI_API_KEY"),
}


def _stack(name: str) -> Stack:
    """The stack, or a skip when one of its modules is not installed (found, not
    imported: importing litellm in this process would fetch its price map)."""
    stack = STACKS[name]
    for module in stack.modules:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (tox -e frameworks installs it)")
    return stack


class Weather:
    """The model's side of one weather question, in any wire format: a call of
    ``get_weather`` with ``arguments`` first, the final text once the request carries
    the call's result (the call id, or Gemini's ``functionResponse``, which has none)."""

    def __init__(self, arguments: dict[str, str]) -> None:
        self.arguments = json.dumps(arguments)

    def __call__(self, request: RecordedRequest) -> TextResponse | ToolCallsResponse:
        if CALL_ID.encode() in request.raw or b"functionResponse" in request.raw:
            return TextResponse(FINAL_TEXT)
        return ToolCallsResponse([(CALL_ID, "get_weather", self.arguments)])


def _project(pytester: pytest.Pytester, stack: Stack) -> Path:
    """The recipe copied in as the project's test module."""
    test_file = pytester.path / "test_weather.py"
    test_file.write_text((RECIPES / stack.recipe).read_text("utf-8"), "utf-8")
    return test_file


def _record(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    stack: Stack,
    arguments: dict[str, str],
) -> Path:
    """Record the recipe against the loopback server, in two model calls of the stack's
    wire format (the tool call, then the final text), and return its cassette."""
    monkeypatch.delenv("CI", raising=False)  # a developer's recording run
    with LoopbackModelServer(respond=Weather(arguments)) as server:
        pytester.makeini(f"[pytest]\nhc_base_url = {server.base_url}\n")
        monkeypatch.setenv(stack.key, SENTINEL)
        result = pytester.runpytest_subprocess("--hc-record-mode=once", "-p", "no:cacheprovider")
        monkeypatch.delenv(stack.key)
        result.assert_outcomes(passed=1)
        server.assert_consumed()
        paths = [request.path for request in server.requests]
    assert len(paths) == 2, paths
    assert all(path.endswith(stack.path) for path in paths), paths
    cassette = pytester.path / "fixtures" / "cassettes" / "test_weather" / "test_weather.yaml"
    assert cassette.is_file()
    holding = [p for p in pytester.path.rglob("*") if p.is_file() and SENTINEL in _text(p)]
    assert holding == []
    monkeypatch.setenv("CI", "1")
    return cassette


def _failed_entry(result: pytest.RunResult) -> str:
    """The short summary's ``FAILED`` entry, with the lines of a multi-line message.

    A cassette error an SDK wrapped leads its crash line with ``CassetteError <CODE>``;
    one that reached the test unwrapped shows its own message, whose last line names
    the code, so the whole entry is what names it."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith("FAILED "))
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(("FAILED ", "="))),
        len(lines),
    )
    return "\n".join(lines[start:end])


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "replace")


@pytest.mark.parametrize("name", list(STACKS))
def test_record_replay_and_a_changed_prompt(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    stack = _stack(name)
    test_file = _project(pytester, stack)
    _record(pytester, monkeypatch, stack, VALID_ARGS)
    replayed = pytester.runpytest_subprocess(*REPLAY)
    replayed.assert_outcomes(passed=1)
    replayed.stdout.no_fnmatch_line("*harness-conformance tool calls*")

    source = test_file.read_text("utf-8")
    assert PROMPT_LINE in source
    test_file.write_text(source.replace(PROMPT_LINE, CHANGED_PROMPT_LINE), "utf-8")
    changed = pytester.runpytest_subprocess(*REPLAY)
    changed.assert_outcomes(failed=1)
    entry = _failed_entry(changed)
    assert entry.startswith(
        "FAILED test_weather.py::test_weather - harness_conformance.CassetteError "
        "CASSETTE_MISMATCH: cassette "
    ), entry


@pytest.mark.parametrize("name", list(STACKS))
def test_checked_replay_catches_an_invalid_recorded_call(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    stack = _stack(name)
    _project(pytester, stack)
    _record(pytester, monkeypatch, stack, INVALID_ARGS)
    call = 'interaction 0, get_weather {"town": "Atlantis"}: '
    listed = pytester.runpytest_subprocess(*REPLAY)
    listed.assert_outcomes(passed=1)
    listed.stdout.fnmatch_lines(["*harness-conformance tool calls*", f"{call}*"])

    failed = pytester.runpytest_subprocess(*REPLAY, "--hc-fail-on-invalid-args")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "FAILED test_weather.py::test_weather - harness_conformance.ToolArgsError: invalid "
            "arguments: *test_weather.yaml: 1 recorded tool call(s) (--hc-fail-on-invalid-args)"
            f": {call}*",
        ]
    )

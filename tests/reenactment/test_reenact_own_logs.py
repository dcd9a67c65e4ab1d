"""Our own loop's session logs re-enact identically: the round trip through a log
loses nothing the comparison looks at. Also the layering rule of the part."""

from __future__ import annotations

import ast
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_conformance import (
    Agent,
    LlmFailure,
    ToolExecutionResult,
    define_tool,
    read_session_log,
    tool,
    write_session_log,
)
from harness_conformance.events import ToolResultEvent
from harness_conformance.models import (
    Fail,
    Hang,
    ScriptedModel,
    max_tokens_reply,
    text_reply,
    tool_calls_reply,
)
from harness_conformance.reenactment import reenact
from harness_conformance.reenactment._compare import first_difference, normalised_stream

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "harness_conformance" / "reenactment"


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


def boom() -> str:
    raise RuntimeError("disk on fire")


TOOLS = [add, define_tool("boom", "Fails.", None, boom)]

Scenario = tuple[list[Any], list[str], Callable[[Agent], None] | None]


def scenarios() -> dict[str, Scenario]:
    server = LlmFailure(message="upstream 503", code="SERVER")
    auth = LlmFailure(message="bad key", code="AUTH")
    calls = [("c1", "add", '{"a": 2, "b": 3}'), ("c2", "boom", "{}"), ("c3", "nope", "{}")]
    return {
        "text": ([text_reply("hello", reasoning="think")], ["hi"], None),
        "tools": (
            [tool_calls_reply(calls, text="working"), text_reply("done")],
            ["go"],
            None,
        ),
        "invalid-args": (
            [
                tool_calls_reply([("c1", "add", '{"a": "x"}'), ("c2", "add", "not json")]),
                text_reply("ok"),
            ],
            ["go"],
            None,
        ),
        "retry-then-error": ([Fail(server), text_reply("ok"), Fail(auth)], ["one", "two"], None),
        "max-tokens": ([max_tokens_reply("cut"), text_reply("rest")], ["one", "two"], None),
        "cancel": ([Hang(text_reply("partial answer")[:3])], ["go"], lambda agent: agent.cancel()),
    }


@pytest.mark.parametrize("name", sorted(scenarios()))
def test_our_own_log_re_enacts_identically(tmp_path: Path, name: str) -> None:
    script, prompts, cancel = scenarios()[name]
    holder: list[Agent] = []
    if cancel is not None:
        script = [Hang(r.chunks, then=lambda: cancel(holder[0])) for r in script]
    agent = Agent(ScriptedModel(script), TOOLS, invariants="strict", sleep=_no_wait)
    holder.append(agent)

    async def run() -> None:
        for prompt in prompts:
            await agent.run(prompt)

    anyio.run(run)
    path = tmp_path / "session.jsonl"
    write_session_log(path, agent.events)

    result = reenact(path)

    assert result.verdict == "identical", (
        result.detail + "\n" + (result.difference.diff if result.difference else "")
    )
    assert result.compared == len(agent.events)


async def _no_wait(_: float) -> None:
    return None


FORBIDDEN = ("cli", "cassettes", "plugin")


def test_the_part_imports_no_cli_cassettes_or_plugin() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) > 1, f"no modules found in {PACKAGE}"
    for module in modules:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                names = [base] + [f"{base}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                parts = name.replace("harness_conformance.", "").lstrip(".").split(".")
                assert not any(p.startswith(FORBIDDEN) for p in parts), f"{module.name}: {name}"


IMAGE = {
    "type": "image",
    "attachment": {"attachmentId": "sha256:ab12", "mediaType": "image/png", "bytes": 74},
}


class AttachesAnImage:
    """A listener that puts an image block beside the text of every ``look`` result, as
    the reference's image tool logs what it read."""

    def post_execute(self, call: Any, result: ToolExecutionResult) -> ToolExecutionResult:
        return dataclasses.replace(result, blocks=(IMAGE,)) if call.name == "look" else result


def _image_log(tmp_path: Path) -> tuple[Path, list[Any]]:
    look = define_tool("look", "Reads an image.", None, lambda: "picture.png, 8x8 px")
    script = [tool_calls_reply([("c1", "look", "{}")]), text_reply("a blue square")]
    agent = Agent(ScriptedModel(script), [look], invariants="strict", sleep=_no_wait)
    agent.tools.add_listener(AttachesAnImage())
    anyio.run(agent.run, "what is in the picture?")
    path = tmp_path / "session.jsonl"
    write_session_log(path, agent.events)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return path, rows


def test_a_tool_result_with_an_image_block_re_enacts_identically(tmp_path: Path) -> None:
    path, rows = _image_log(tmp_path)
    [result] = [row for row in rows if row.get("type") == "tool/result"]
    blocks = result["data"]["message"]["content"][0]["content"]
    assert blocks == [{"type": "text", "text": "picture.png, 8x8 px"}, IMAGE]
    outcome = reenact(path)
    assert outcome.verdict == "identical", outcome.detail
    [ours] = [event for event in outcome.events if isinstance(event, ToolResultEvent)]
    assert ours.message["content"][0]["content"][1] == IMAGE


def test_the_comparison_sees_a_missing_image_block(tmp_path: Path) -> None:
    path, _ = _image_log(tmp_path)
    events = read_session_log(path).events
    stripped = []
    for event in events:
        if isinstance(event, ToolResultEvent):
            message = json.loads(json.dumps(event.message))
            del message["content"][0]["content"][1]
            event = dataclasses.replace(event, message=message)
        stripped.append(event)
    found = first_difference(normalised_stream(events), normalised_stream(stripped))
    assert found is not None
    _, recorded, ours = found
    assert recorded is not None
    assert ours is not None
    assert recorded.event["type"] == ours.event["type"] == "tool/result"

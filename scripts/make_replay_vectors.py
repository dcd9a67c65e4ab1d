"""Record the replay conformance vectors of ``conformance/replay/``.

Usage: ``python scripts/make_replay_vectors.py [OUT_DIR]`` (default
``conformance/replay``). Each scenario runs this library's agent loop against a
scripted `LoopbackModelServer` inside `use_cassette`, so ``cassette.yaml`` is real
traffic of the openai SDK. The script then replays the cassette with `replay_cassette`
and writes ``events.json`` (the normalised event log) and ``expected.json`` (turn
reasons, invalid tool calls, violations) from that replay.

The run is deterministic: the loopback server's ephemeral port and the ``created``
stamps of its completions are pinned in the cassette, and a cassette that records the
same exchanges as the one already there is left as it is. Two cassettes record the same
exchanges when `same_recording` says so: their interactions are compared as the
cassette loader reads them, so JSON bodies compare as values (the key order that the
installed openai SDK writes does not matter) and the ``recorded_at`` stamp is not
looked at. Every file is written to a temporary file and renamed.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from harness_conformance import Agent, OpenAICompatibleModel, define_tool, s
from harness_conformance.cassettes import (
    load_foreign_cassette,
    make_vcr,
    use_cassette,
)
from harness_conformance.conformance import replay_cassette
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)
from harness_conformance.tools import Tool

KEY = "sk-" + "replay-vectors-0123456789abcdef"
PINNED_PORT = "8000"
"""The port written into cassettes in place of the loopback server's ephemeral one."""


def _weather(city: str, unit: str = "celsius") -> str:
    temperatures = {"Paris": 18, "Oslo": 7}
    value = temperatures.get(city, 20)
    return f"{value} degrees {unit} in {city}"


WEATHER = define_tool(
    "weather",
    "Current temperature of a city.",
    s.params(
        {
            "city": s.string(required=True, min_length=1),
            "unit": s.string(enum=["celsius", "fahrenheit"]),
        }
    ),
    _weather,
)


@dataclass(frozen=True)
class Scenario:
    """One vector: what the model server answers and what the user asks."""

    name: str
    description: str
    script: Sequence[ScriptEntry]
    prompts: Sequence[str]
    tools: Sequence[Tool] = (WEATHER,)
    system: str | None = "You answer briefly."


SCENARIOS = [
    Scenario(
        "text",
        "Two turns of plain text, the first with DeepSeek-style reasoning before the answer.",
        [
            TextResponse("Hello! How can I help?", reasoning="A greeting.", piece=8),
            TextResponse("Goodbye.", piece=5),
        ],
        ["Hello.", "Bye."],
    ),
    Scenario(
        "tool-call",
        "One tool call, its result, then the final text.",
        [
            ToolCallsResponse([("call_1", "weather", '{"city": "Paris"}')], split=8),
            TextResponse("It is 18 degrees in Paris.", piece=9),
        ],
        ["What is the weather in Paris?"],
    ),
    Scenario(
        "parallel-calls",
        "Two tool calls in one step, streamed interleaved; results follow in call order.",
        [
            ToolCallsResponse(
                [
                    ("call_p", "weather", '{"city": "Paris"}'),
                    ("call_o", "weather", '{"city": "Oslo", "unit": "celsius"}'),
                ],
                text="Checking both.",
                split=10,
                interleave=True,
            ),
            TextResponse("Paris 18, Oslo 7.", piece=9),
        ],
        ["Weather in Paris and Oslo?"],
    ),
    Scenario(
        "invalid-args-corrected",
        "The model sends arguments that break the schema, reads the INVALID_ARGS error "
        "result, and calls again correctly.",
        [
            ToolCallsResponse([("call_bad", "weather", '{"city": "", "unit": "kelvin"}')]),
            ToolCallsResponse([("call_good", "weather", '{"city": "Oslo"}')], split=8),
            TextResponse("It is 7 degrees in Oslo.", piece=9),
        ],
        ["Weather in Oslo?"],
    ),
    Scenario(
        "provider-error",
        "A 401 from the provider ends the first turn with an AUTH error; the next turn succeeds.",
        [
            ErrorResponse(
                401,
                {"error": {"message": "invalid api key", "type": "auth", "code": "invalid_key"}},
            ),
            TextResponse("Hello again.", piece=6),
        ],
        ["Hello.", "Hello again?"],
    ),
]


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, so a reader never
    sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.", delete=False
    ) as handle:
        handle.write(text)
    Path(handle.name).replace(path)


async def _no_wait(_seconds: float) -> None:
    await anyio.sleep(0)


def _record(scenario: Scenario, cassette: Path) -> None:
    with LoopbackModelServer(scenario.script) as server:

        async def run() -> None:
            model = OpenAICompatibleModel("deepseek-chat", base_url=server.base_url, api_key=KEY)
            ids = iter(range(1, 1000))
            async with Agent(
                model,
                list(scenario.tools),
                system=scenario.system,
                sleep=_no_wait,
                new_id=lambda: f"vector-{next(ids)}",
            ) as agent:
                for prompt in scenario.prompts:
                    await agent.run(prompt)

        with use_cassette(make_vcr(secrets=[KEY]), cassette, mode="all"):
            anyio.run(run)
        port = str(server.port)
    server.assert_consumed()
    text = cassette.read_text(encoding="utf-8")
    text = text.replace(f"127.0.0.1:{port}", f"127.0.0.1:{PINNED_PORT}")
    text = re.sub(r"(?m)^(\s+)created: \d+$", r"\1created: 0", text)  # format 1
    text = re.sub(r'"created": ?\d+', lambda m: m[0].rstrip("0123456789") + "0", text)
    atomic_write(cassette, text)


def same_recording(left: Path, right: Path) -> bool:
    """Whether two cassettes record the same exchanges: method, URL, status, kept
    response headers and bodies, with JSON and event-stream payloads compared as
    values."""
    return load_foreign_cassette(left) == load_foreign_cassette(right)


def dump_json(data: Any) -> str:
    """``data`` as the vectors store it: a list one item per line, anything else indented."""
    if isinstance(data, list):
        lines = [json.dumps(item, ensure_ascii=False) for item in data]
        return "[\n  " + ",\n  ".join(lines) + "\n]\n"
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def make_vector(scenario: Scenario, out: Path) -> None:
    """Record one scenario into ``out/<name>/``."""
    folder = out / scenario.name
    folder.mkdir(parents=True, exist_ok=True)
    cassette = folder / "cassette.yaml"
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch) / "cassette.yaml"
        _record(scenario, fresh)
        if not (cassette.is_file() and same_recording(cassette, fresh)):
            atomic_write(cassette, fresh.read_text(encoding="utf-8"))
    result = replay_cassette(cassette)
    expected = {"vectors": 2, "description": scenario.description, "requires": ["op:replay"]}
    expected.update(result.outcome)
    atomic_write(folder / "events.json", dump_json(result.events))
    atomic_write(folder / "expected.json", dump_json(expected))


def main(argv: Sequence[str], make: Callable[[Scenario, Path], None] = make_vector) -> int:
    """Record every scenario into the given folder (default ``conformance/replay``)."""
    out = Path(argv[0]) if argv else Path(__file__).resolve().parents[1] / "conformance" / "replay"
    for scenario in SCENARIOS:
        make(scenario, out)
        print(f"wrote {out / scenario.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

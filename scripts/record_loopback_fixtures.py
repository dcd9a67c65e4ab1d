"""Regenerate the loopback cassettes shipped in ``fixtures/cassettes/loopback/``.

Each scenario in ``fixtures/scenarios/<name>.yaml`` (prompts, tools, settings) is
recorded through the same machinery as ``harness-conformance record``, against a
`LoopbackModelServer` that answers with the script below for that name. The server
stands in for DeepSeek: same wire format, scripted replies, no key and no network.
The scenarios of `FORMAT_SCENARIOS` are also recorded through the model of every other
wire format (`harness_conformance.models.model_for`) into
``loopback/<format>/<name>.yaml``, the server answering in that format.
The cassettes record the loopback host and port; replaying them matches interactions
by order, so the port does not matter.

Usage::

    python scripts/record_loopback_fixtures.py               # every scenario
    python scripts/record_loopback_fixtures.py tool_call     # some of them
    python scripts/record_loopback_fixtures.py --out DIR     # somewhere else
    python scripts/record_loopback_fixtures.py --formats     # the other wire formats too
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness_conformance.models import PROVIDERS
from harness_conformance.recording._scenario import load_scenario, record_scenario
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "fixtures" / "scenarios"
OUTPUT = ROOT / "fixtures" / "cassettes" / "loopback"
KEY = "sk-" + "loopback-fixture-key-0000"
"""A stand-in key: the server never checks it and the recording scrubs it."""

SCRIPTS: Mapping[str, Sequence[ScriptEntry]] = {
    "plain_text": [
        TextResponse("Welcome aboard, glad to have you here!", usage_in_final_chunk=True)
    ],
    "reasoning": [
        TextResponse(
            'The letter r appears 3 times in "strawberry".',
            reasoning=(
                "Spell it out: s-t-r-a-w-b-e-r-r-y. The r's are the third, eighth and "
                "ninth letters, so there are three."
            ),
            piece=6,
            model="deepseek-reasoner",
            usage_in_final_chunk=True,
        )
    ],
    "tool_call": [
        ToolCallsResponse([("call_weather_paris", "get_weather", '{"city": "Paris"}')]),
        TextResponse("It is sunny in Paris, 21 C."),
    ],
    "parallel_tool_calls": [
        ToolCallsResponse(
            [
                ("call_paris", "get_weather", '{"city": "Paris"}'),
                ("call_oslo", "get_weather", '{"city": "Oslo"}'),
                ("call_rome", "get_weather", '{"city": "Rome"}'),
            ],
            split=4,
            interleave=True,
        ),
        TextResponse(
            "Rome is warmest (clear, 26 C), Paris is sunny at 21 C, Oslo has rain at 9 C."
        ),
    ],
    "invalid_args": [
        ToolCallsResponse([("call_convert_1", "celsius_to_fahrenheit", '{"celsius": "twenty"}')]),
        ToolCallsResponse([("call_convert_2", "celsius_to_fahrenheit", '{"celsius": 20}')]),
        TextResponse("20 C is 68 F."),
    ],
    "rate_limit_retry": [
        ErrorResponse(
            429,
            {"error": {"message": "Rate limit reached, slow down", "type": "rate_limit_error"}},
            headers={"retry-after": "0"},
        ),
        TextResponse("101 is a prime number greater than 100."),
    ],
    "auth_error": [
        ErrorResponse(
            401,
            {
                "error": {
                    "message": "Authentication Fails, your api key is invalid",
                    "type": "authentication_error",
                    "param": None,
                    "code": "invalid_request_error",
                }
            },
        )
    ],
    "insufficient_balance": [
        ErrorResponse(
            402,
            {
                "error": {
                    "message": "Insufficient Balance",
                    "type": "unknown_error",
                    "param": None,
                    "code": "invalid_request_error",
                }
            },
        )
    ],
    "multi_turn": [
        TextResponse("Green."),
        TextResponse("A lime is green."),
    ],
    "max_tokens": [
        TextResponse(
            "The Roman Empire grew out of the Roman Republic after",
            finish_reason="length",
            usage={"prompt_tokens": 14, "completion_tokens": 12, "total_tokens": 26},
        )
    ],
}
"""The server's replies for each scenario, in the order the loop asks for them."""


FORMAT_SCENARIOS = ("plain_text", "reasoning", "tool_call", "parallel_tool_calls", "max_tokens")
"""The scenarios recorded in every wire format besides chat-completions."""

OTHER_FORMATS = tuple(name for name in PROVIDERS if name != "openai-chat")


def record_one(name: str, out: Path, wire: str = "openai-chat") -> Path:
    """Record scenario ``name`` in wire format ``wire`` into ``out/<name>.yaml``; the
    server must be used up."""
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    target = out / f"{name}.yaml"
    model = scenario.model if wire == "openai-chat" else None
    with LoopbackModelServer(SCRIPTS[name]) as server:
        record_scenario(
            scenario,
            target,
            model=model or PROVIDERS[wire].default_model,
            base_url=server.base_url,
            api_key=KEY,
            invariants="strict",
            provider=wire,
        )
        server.assert_consumed()
    return target


def regenerate(out: Path = OUTPUT, names: Sequence[str] = ()) -> list[Path]:
    """Record the named scenarios (all of them by default) into ``out``."""
    unknown = sorted(set(names) - set(SCRIPTS))
    if unknown:
        raise SystemExit(f"unknown scenario(s): {', '.join(unknown)}; known: {', '.join(SCRIPTS)}")
    return [record_one(name, out) for name in (names or list(SCRIPTS))]


def regenerate_formats(out: Path = OUTPUT, formats: Sequence[str] = OTHER_FORMATS) -> list[Path]:
    """Record `FORMAT_SCENARIOS` in each of ``formats`` into ``out/<format>/``."""
    written: list[Path] = []
    for wire in formats:
        folder = out / wire
        folder.mkdir(parents=True, exist_ok=True)
        written += [record_one(name, folder, wire) for name in FORMAT_SCENARIOS]
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("names", nargs="*", help="scenarios to record (default: all)")
    parser.add_argument("--out", type=Path, default=OUTPUT, help="the folder to write into")
    parser.add_argument("--formats", action="store_true", help="also record the other wire formats")
    args = parser.parse_args(argv)
    for path in regenerate(args.out, args.names):
        print(path)
    if args.formats:
        for path in regenerate_formats(args.out):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

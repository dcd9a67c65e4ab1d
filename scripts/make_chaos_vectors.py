"""Write the chaos replay vectors of ``conformance/replay/chaos-*/``.

Usage: ``python scripts/make_chaos_vectors.py [OUT_DIR]`` (default
``conformance/replay``). Each vector is a recorded cassette played under a fault
and/or byte cuts (``fault.json``). The cassette is copied from a shipped one, or, for
the scenarios of `RECORDED`, recorded by `make_replay_vectors.make_vector` against the
scripted loopback server (a recording that holds the same exchanges as the one already
there is left as it is). The script then replays each vector through the provider SDK
clients under its weather (`replay_cassette` with the vector's fault) and writes
``events.json`` and ``expected.json`` from that replay, with the vector's description.

The files are what this library does today; read each against the fault model
(``docs/rfc/implemented/testing/2026-12-01-fault-model-for-chaos-replay.md``) before
shipping it. Every file is written to a temporary file and renamed.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from make_replay_vectors import Scenario, atomic_write, dump_json, make_vector, same_recording

from harness_conformance.conformance import replay_cassette
from harness_conformance.conformance._meta import MetaSchema
from harness_conformance.conformance._replay_faults import read_vector_fault
from harness_conformance.server import TextResponse, ToolCallsResponse

ROOT = Path(__file__).resolve().parents[1]
REPLAY = ROOT / "conformance" / "replay"
META = ROOT / "conformance" / "meta" / "replay-vector.schema.json"
GEMINI_OPENAI = (
    ROOT
    / "fixtures"
    / "cassettes"
    / "corpus"
    / "magentic"
    / "test_openai_chat_model_gemini_complete[Say hello!-output_types0-str].yaml"
)

RECORDED = {
    "utf8-tool-call": Scenario(
        "utf8-tool-call",
        "A tool call whose city is written in CJK characters, then the final text.",
        [
            ToolCallsResponse([("call_1", "weather", '{"city": "東京"}')], split=4),
            TextResponse("東京は20度です。", piece=4),
        ],
        ["東京の天気を教えて"],
    ),
}
"""Base recordings made against the loopback server, by name."""


def _continuation_bytes(body: bytes) -> list[int]:
    """Every offset that falls inside a multi-byte UTF-8 sequence of ``body``."""
    return [index for index, byte in enumerate(body) if 0x80 <= byte < 0xC0]


@dataclass(frozen=True)
class ChaosVector:
    """One vector: where its cassette comes from, its weather and what it pins."""

    name: str
    description: str
    source: Path | str
    """A cassette file to copy, or the name of a `RECORDED` scenario."""
    fault: Mapping[str, Any] | None = None
    retries: int = 0
    cuts: Callable[[Mapping[int, bytes]], Mapping[int, list[int]]] | None = None
    """Derives the cut lists from the served bodies, by interaction index."""
    extra: Sequence[Path] = field(default_factory=tuple)
    """Files copied beside the cassette (the licence of a third-party recording)."""
    as_recorded: bool = False
    """The fault must change nothing: the expected files are those of the recording
    replayed without it, whatever this library makes of the fault (a known gap then
    claims the vector)."""


LOOPBACK = ROOT / "fixtures" / "cassettes" / "loopback"
TEXT = REPLAY / "text" / "cassette.yaml"
TOOL_CALL = REPLAY / "tool-call" / "cassette.yaml"
PARALLEL = REPLAY / "parallel-calls" / "cassette.yaml"

VECTORS = [
    ChaosVector(
        "chaos-chat-usage-stream-cut",
        "Bug pinned: a chat-completions stream that carries usage on every content chunk "
        "(Gemini's OpenAI-compatible endpoint, recorded by magentic, MIT) is cut after its "
        "first event and before any finish_reason. Usage on a chunk with content is no "
        "end of the reply, so the turn ends STREAM_CLOSED and is not retried, though one "
        "more call is allowed.",
        GEMINI_OPENAI,
        {"interaction": 0, "kind": "truncated", "at": 1},
        retries=1,
        extra=(GEMINI_OPENAI.parent / "LICENSE",),
    ),
    ChaosVector(
        "chaos-429-retry-after-not-retried",
        "Fault pinned: HTTP 429 with retry-after: 7 on the second turn's call, no retry "
        "allowed. The failure is RATE_LIMIT with status 429 and a wait of 7000 ms; "
        "the first turn is played as recorded.",
        TEXT,
        {"interaction": 1, "kind": "status", "status": 429, "retryAfterMs": 7000},
    ),
    ChaosVector(
        "chaos-503-retried",
        "Fault pinned: HTTP 503 on the call after the tool result, one more call allowed. "
        "SERVER is retried inside the same step without waiting; the retry gets the "
        "recorded response and the turn completes as recorded, the failed call leaving "
        "only its error finish in the log.",
        TOOL_CALL,
        {"interaction": 1, "kind": "status", "status": 503},
        retries=1,
    ),
    ChaosVector(
        "chaos-400-context-length",
        "Fault pinned: HTTP 400 whose message is a context-length refusal on the second "
        "turn's call. It ends the turn CONTEXT_WINDOW_EXCEEDED, not INVALID_REQUEST, and "
        "is not retried though one more call is allowed.",
        TEXT,
        {"interaction": 1, "kind": "status", "status": 400, "context": True},
        retries=1,
    ),
    ChaosVector(
        "chaos-reset-before-body",
        "Fault pinned: the connection drops before any response to the first turn's call, "
        "one more call allowed. TRANSPORT is retried inside the same step and the retry "
        "gets the recorded response: the turn completes as recorded.",
        TEXT,
        {"interaction": 0, "kind": "reset-before-body"},
        retries=1,
    ),
    ChaosVector(
        "chaos-reset-during-body",
        "Fault pinned: the connection drops inside the fourth event of the final answer, "
        "after two pieces of text. The text streamed stays in the log as chunks but "
        "becomes no assistant message; TRANSPORT is retried and the retry completes the "
        "turn as recorded.",
        TOOL_CALL,
        {"interaction": 1, "kind": "reset-during-body", "at": 800},
        retries=1,
    ),
    ChaosVector(
        "chaos-truncated-with-done",
        "Fault pinned: a tool-call stream stops after its first arguments and closes with "
        "data: [DONE] but no finish_reason. [DONE] is no finish: the turn ends "
        "STREAM_CLOSED, the half-streamed tool call is never run, and nothing is retried "
        "though one more call is allowed.",
        TOOL_CALL,
        {"interaction": 0, "kind": "truncated", "at": 3, "done": True},
        retries=1,
    ),
    ChaosVector(
        "chaos-malformed-event",
        "Fault pinned: the third event of the second turn's stream carries data that is "
        "not JSON. The turn ends MALFORMED_RESPONSE after the chunks read before it, and "
        "is not retried though one more call is allowed.",
        TEXT,
        {"interaction": 1, "kind": "malformed-event", "at": 2},
        retries=1,
    ),
    ChaosVector(
        "chaos-keep-alive-flood",
        "Fault pinned: 200 keep-alive comment lines after the third event of a stream of "
        "two interleaved tool calls. Comments carry nothing: the session says exactly "
        "what the recording says.",
        PARALLEL,
        {"interaction": 0, "kind": "keep-alive-flood", "at": 2, "lines": 200},
    ),
    ChaosVector(
        "chaos-anthropic-cut-after-tool-block",
        "Fault pinned: an Anthropic Messages stream stops cleanly after content_block_stop "
        "closed a whole tool_use block, before message_delta and message_stop. A closed "
        "block is no finished reply: the turn ends STREAM_CLOSED, the tool never runs, and "
        "nothing is retried though one more call is allowed.",
        LOOPBACK / "anthropic-messages" / "tool_call.yaml",
        {"interaction": 0, "kind": "truncated", "at": 11},
        retries=1,
    ),
    ChaosVector(
        "chaos-gemini-keep-alive-flood",
        "Fault pinned: 3 keep-alive comment lines after the first event of a Gemini stream. "
        "Comments carry nothing: the session says exactly what the recording says. "
        "google-genai reads the comment lines as JSON, so this library is claimed by a "
        "known gap here.",
        LOOPBACK / "gemini" / "plain_text.yaml",
        {"interaction": 0, "kind": "keep-alive-flood", "at": 0, "lines": 3},
        as_recorded=True,
    ),
    ChaosVector(
        "chaos-stall",
        "Fault pinned: the read blocks past the client's timeout inside the final "
        "answer, no retry allowed. The turn ends TIMEOUT at once (no test waits), after "
        "the text streamed before the stall, which becomes no assistant message.",
        TOOL_CALL,
        {"interaction": 1, "kind": "stall", "at": 800},
    ),
    ChaosVector(
        "chaos-utf8-split-tool-arguments",
        "Chunking pinned: every response body is split inside each multi-byte UTF-8 "
        "sequence (the CJK city in the tool call's arguments, the CJK answer). Bytes are "
        "decoded only once a sequence is whole: the session says exactly what the "
        "recording says.",
        "utf8-tool-call",
        cuts=lambda bodies: {
            index: _continuation_bytes(body)
            for index, body in bodies.items()
            if _continuation_bytes(body)
        },
    ),
]


def _place_cassette(vector: ChaosVector, folder: Path) -> None:
    cassette = folder / "cassette.yaml"
    if isinstance(vector.source, Path):
        fresh = vector.source
        if not (cassette.is_file() and cassette.read_bytes() == fresh.read_bytes()):
            atomic_write(cassette, fresh.read_text(encoding="utf-8"))
        return
    with tempfile.TemporaryDirectory() as scratch:
        make_vector(RECORDED[vector.source], Path(scratch))
        fresh = Path(scratch) / vector.source / "cassette.yaml"
        if not (cassette.is_file() and same_recording(cassette, fresh)):
            atomic_write(cassette, fresh.read_text(encoding="utf-8"))


def make_chaos_vector(vector: ChaosVector, out: Path) -> None:
    """Write one vector into ``out/<name>/``."""
    from harness_conformance.chaos import served_responses

    folder = out / vector.name
    folder.mkdir(parents=True, exist_ok=True)
    _place_cassette(vector, folder)
    for extra in vector.extra:
        shutil.copyfile(extra, folder / extra.name)
    weather: dict[str, Any] = {}
    if vector.fault is not None:
        weather["fault"] = dict(vector.fault)
    if vector.cuts is not None:
        bodies = {i: r.body for i, r in served_responses(folder / "cassette.yaml").items()}
        weather["cuts"] = {str(i): cuts for i, cuts in vector.cuts(bodies).items()}
    if vector.retries:
        weather["retries"] = vector.retries
    atomic_write(folder / "fault.json", json.dumps(weather, ensure_ascii=False) + "\n")
    fault = read_vector_fault(folder / "fault.json", folder / "cassette.yaml", MetaSchema(META))
    if vector.as_recorded:
        result = replay_cassette(folder / "cassette.yaml")
        result.outcome["failures"] = []
    else:
        result = replay_cassette(folder / "cassette.yaml", fault)
    expected = {"vectors": 2, "description": vector.description, "requires": ["op:replay"]}
    expected.update(result.outcome)
    atomic_write(folder / "events.json", dump_json(result.events))
    atomic_write(folder / "expected.json", dump_json(expected))


def main(argv: Sequence[str]) -> int:
    """Write every chaos vector into the given folder (default ``conformance/replay``)."""
    out = Path(argv[0]) if argv else REPLAY
    for vector in VECTORS:
        make_chaos_vector(vector, out)
        print(f"wrote {out / vector.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The scenarios the released reference command line is run through, headless.

Each scenario is one task for ``dsh --profile headless`` and the replies a
`LoopbackModelServer` gives the requests of its session, in order. The command line
also asks, beside its first model call, for a title for the session (a request without
tools whose system text asks for a concise title); `Router` answers those apart, so a
scenario's replies are only the ones its session's turn reads.

``ending`` is the turn ending the reference must log, and ``exit_code`` the status the
command line must exit with. ``files`` are written into the working folder first.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness_conformance.server import (
    ErrorResponse,
    MalformedResponse,
    RecordedRequest,
    Response,
    TextResponse,
    ToolCallsResponse,
)

NOTES = "hello from notes.txt\n"


def _png(width: int, height: int) -> bytes:
    """A valid PNG of one colour, for the image tool to read."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x20\x80\xc0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@dataclass(frozen=True)
class Scenario:
    """One run of the command line against the loopback server."""

    name: str
    task: str
    replies: tuple[Response, ...]
    ending: Mapping[str, Any]
    """The logged turn ending: ``{"kind": "completed"}``, ``{"kind": "error", "code":
    ...}`` (the code of the error reason) or ``{"kind": "max-tokens"}``."""
    exit_code: int = 0
    stdout: str | None = None
    """Text the printed answer must contain."""
    files: Mapping[str, str | bytes] = field(default_factory=lambda: {"notes.txt": NOTES})
    made: Mapping[str, str] = field(default_factory=dict)
    """Files the run must leave in the working folder, with their text."""
    patch: str | None = None
    """A patch of the command line's profile (YAML), passed with ``--patch``."""
    compactions: int = 0
    """Requests the command line makes to compact the context, answered with a summary."""
    not_reenactable: str | None = None
    """The reason re-enactment must give, for a log that uses a feature our loop lacks;
    None when it must re-enact ``identical``."""


def _call(name: str, arguments: str, call_id: str = "call_1") -> tuple[str, str, str]:
    return (call_id, name, arguments)


COMPLETED = {"kind": "completed"}

SMALL_CONTEXT = """\
- id: llm-deepseek
  config:
    models:
      - id: deepseek-v4-flash
        name: DeepSeek-V4-Flash
        contextWindow: 16000
"""
"""A profile patch that gives the session's model a context window eight files of
about 7,000 characters fill past the compaction threshold (80 %)."""

SUMMARY = "The user asked to read eight files; all eight were read."
"""The summary the compaction requests are answered with."""

VISION_MODEL = """\
- id: llm-deepseek
  config:
    models:
      - id: deepseek-v4-flash
        name: DeepSeek-V4-Flash
        inputModalities: [text, image]
"""
"""A profile patch that declares the session's model as one that takes images, so the
reference's image tool returns the image to the model as an image block."""

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("text", "Say PONG.", (TextResponse("PONG"),), COMPLETED, stdout="PONG"),
    Scenario(
        "reasoning",
        "Think, then say PONG.",
        (
            TextResponse(
                "PONG", reasoning="The user wants the word PONG.", usage_in_final_chunk=True
            ),
        ),
        COMPLETED,
        stdout="PONG",
    ),
    Scenario(
        "read-a-file",
        "What does notes.txt say?",
        (
            ToolCallsResponse([_call("read", '{"file_path": "notes.txt"}')]),
            TextResponse("It says hello."),
        ),
        COMPLETED,
        stdout="It says hello.",
    ),
    Scenario(
        "read-an-image",
        "What is in picture.png?",
        (
            ToolCallsResponse([_call("read_image", '{"file_path": "picture.png"}')]),
            TextResponse("A blue square."),
        ),
        COMPLETED,
        files={"picture.png": _png(8, 8)},
        patch=VISION_MODEL,
    ),
    Scenario(
        "compaction-then-a-retried-step",
        "Read the eight parts.",
        (
            ToolCallsResponse(
                [_call("read", f'{{"file_path": "part{n}.txt"}}', f"call_{n}") for n in range(8)]
            ),
            ErrorResponse(429, headers={"retry-after": "0"}),
            TextResponse("All eight parts are read."),
        ),
        COMPLETED,
        files={f"part{n}.txt": f"a line of part {n} with words to count\n" * 180 for n in range(8)},
        patch=SMALL_CONTEXT,
        compactions=2,
        not_reenactable="compaction",
    ),
    Scenario(
        "write-a-file",
        "Write out.txt.",
        (
            ToolCallsResponse(
                [_call("write", '{"file_path": "out.txt", "content": "written by the model\\n"}')]
            ),
            TextResponse("Wrote out.txt."),
        ),
        COMPLETED,
        made={"out.txt": "written by the model\n"},
    ),
    Scenario(
        "edit-a-file",
        "Change hello to goodbye in notes.txt.",
        (
            ToolCallsResponse([_call("read", '{"file_path": "notes.txt"}')]),
            ToolCallsResponse(
                [
                    _call(
                        "edit",
                        '{"file_path": "notes.txt", "old_string": "hello", '
                        '"new_string": "goodbye"}',
                        "call_2",
                    )
                ]
            ),
            TextResponse("Done."),
        ),
        COMPLETED,
        made={"notes.txt": "goodbye from notes.txt\n"},
    ),
    Scenario(
        "run-a-command",
        "Show the working folder.",
        (
            ToolCallsResponse(
                [_call("bash", '{"command": "cat notes.txt", "description": "Show the notes"}')]
            ),
            TextResponse("Shown."),
        ),
        COMPLETED,
    ),
    Scenario(
        "parallel-calls",
        "Read notes.txt and list the text files.",
        (
            ToolCallsResponse(
                [
                    _call("read", '{"file_path": "notes.txt"}'),
                    _call("glob", '{"pattern": "*.txt"}', "call_2"),
                ],
                interleave=True,
            ),
            TextResponse("Both done."),
        ),
        COMPLETED,
    ),
    Scenario(
        "invalid-arguments",
        "Read a file.",
        (
            ToolCallsResponse([_call("read", '{"file_path": 42}')]),
            ToolCallsResponse([_call("read", '{"file_path": "notes.txt"}', "call_2")]),
            TextResponse("Read it on the second try."),
        ),
        COMPLETED,
    ),
    Scenario(
        "malformed-arguments",
        "Read a file.",
        (
            ToolCallsResponse([_call("read", '{"file_path": "notes.txt"')]),
            TextResponse("The call was cut short."),
        ),
        COMPLETED,
    ),
    Scenario(
        "missing-file",
        "Read nope.txt.",
        (
            ToolCallsResponse([_call("read", '{"file_path": "nope.txt"}')]),
            TextResponse("There is no such file."),
        ),
        COMPLETED,
    ),
    Scenario(
        "unknown-tool",
        "Use a tool that does not exist.",
        (
            ToolCallsResponse([_call("no_such_tool", "{}")]),
            TextResponse("That tool does not exist."),
        ),
        COMPLETED,
    ),
    Scenario(
        "rate-limited",
        "Say PONG.",
        (ErrorResponse(429, headers={"retry-after": "1"}), TextResponse("PONG after the wait")),
        COMPLETED,
        stdout="PONG after the wait",
    ),
    Scenario(
        "server-errors-until-the-budget-runs-out",
        "Say PONG.",
        tuple(ErrorResponse(500) for _ in range(6)),
        {"kind": "error", "code": "SERVER"},
        exit_code=1,
    ),
    Scenario(
        "unauthorized",
        "Say PONG.",
        (ErrorResponse(401),),
        {"kind": "error", "code": "AUTH"},
        exit_code=1,
    ),
    Scenario(
        "max-tokens",
        "Write a long story.",
        (TextResponse("Once upon a", finish_reason="length"),),
        {"kind": "max-tokens"},
        exit_code=1,
    ),
    Scenario(
        "content-filter",
        "Say something the filter stops.",
        (TextResponse("I cannot", finish_reason="content_filter"),),
        {"kind": "error", "code": "CONTENT_FILTER"},
        exit_code=1,
    ),
    Scenario(
        "empty-reply-retried",
        "Say PONG.",
        (TextResponse(""), TextResponse("PONG on the second call")),
        COMPLETED,
        stdout="PONG on the second call",
    ),
    Scenario(
        "malformed-stream",
        "Say PONG.",
        (MalformedResponse(b"data: {not json\n\n"),),
        {"kind": "error", "code": "MALFORMED_RESPONSE"},
        exit_code=1,
    ),
)

TITLE_PROMPT = "Create a concise title"
"""How the system text of the command line's title request starts."""

COMPACTION_PROMPT = "You are now acting as a compaction engine"
"""How the last message of the command line's request to compact the context starts."""


def is_title_request(request: RecordedRequest) -> bool:
    """Whether ``request`` is the command line's side request for a session title."""
    body = request.body if isinstance(request.body, dict) else {}
    messages = body.get("messages") or [{}]
    first = messages[0] if isinstance(messages[0], dict) else {}
    return not body.get("tools") and str(first.get("content") or "").startswith(TITLE_PROMPT)


def is_compaction_request(request: RecordedRequest) -> bool:
    """Whether ``request`` asks the model to summarise the session to compact it."""
    body = request.body if isinstance(request.body, dict) else {}
    messages = body.get("messages") or [{}]
    last = messages[-1] if isinstance(messages[-1], dict) else {}
    return str(last.get("content") or "").startswith(COMPACTION_PROMPT)


class Router:
    """A script entry that answers title requests with a title, compaction requests with
    a summary and every other request with the scenario's next reply. `script` gives it
    once per request the run may make, so a request too many is one the server cannot
    answer; a run that ends before its title request went out (a fast failure) leaves
    that entry unplayed, so the runner checks the replies, not the script, were used."""

    def __init__(self, scenario: Scenario, titles: int = 1) -> None:
        self.replies = list(scenario.replies)
        self.titles = titles
        self.compactions = scenario.compactions
        self.asked: list[str] = []

    def __call__(self, request: RecordedRequest) -> Response:
        if is_title_request(request):
            self.asked.append("title")
            return TextResponse("A title")
        if is_compaction_request(request):
            self.asked.append("compaction")
            return TextResponse(SUMMARY)
        self.asked.append("turn")
        if not self.replies:
            return ErrorResponse(599, {"error": {"message": "the scenario has no more replies"}})
        return self.replies.pop(0)

    def script(self) -> list[Router]:
        return [self] * (len(self.replies) + self.titles + self.compactions)

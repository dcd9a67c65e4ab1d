"""Every wire format's facts, asked through its `WireFormat` object, agree end to end.

For each format and each HTTP error status, four paths name a code and must name the
same one: the error body the loopback server writes for the status, read back by the
format's reader; the body a chaos ``status`` fault sends, read back the same way; the
format's real SDK model served that status over a socket; and `fault_code`, the code
the fault model predicts. The finish rules agree with the reader: a stream the server
writes is a finished reply to the reader, and the same stream cut just before the
event `WireFormat.reply_end` names is a cut one. A stream spoiled by a chaos fault
(cut at any event, with or without its closing event, or flooded with keep-alive
comments) fails the format's SDK model with the code the fault model reads from the
spoiled body (`reader_code`, `ProviderDefaults.sdk_skips_comments`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import anyio
import httpx2
import pytest

from harness_conformance.chaos import Fault, fault_code
from harness_conformance.chaos._faults import reader_code, spoiled_body, status_answer
from harness_conformance.errors import LlmError
from harness_conformance.events import FinishChunk
from harness_conformance.models import ModelRequest, model_for
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    MalformedResponse,
    ScriptEntry,
    TextResponse,
)
from harness_conformance.wire import FORMATS, WireFormat

STATUSES = (400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529)
CONTEXT_STATUSES = (400, 413, 422)
IDS = [speaks.name for speaks in FORMATS]


def _read(speaks: WireFormat, status: int, headers: Mapping[str, str], body: bytes) -> str:
    try:
        parsed: object = json.loads(body)
    except ValueError:
        parsed = body.decode("utf-8")
    lowered = {name.lower(): value for name, value in headers.items()}
    return speaks.failure(status, parsed, lowered, request_id=None).code


def _sdk_codes(speaks: WireFormat) -> dict[int, str | None]:
    """The code the format's SDK model raises for each status, served by the loopback
    server one status after another."""
    codes = _sdk_reads(speaks, [ErrorResponse(status) for status in STATUSES])
    return dict(zip(STATUSES, codes, strict=True))


@pytest.mark.parametrize("speaks", FORMATS, ids=IDS)
def test_every_status_reads_the_same_on_every_path(speaks: WireFormat) -> None:
    sdk = _sdk_codes(speaks)
    disagreements = []
    for status in STATUSES:
        written = speaks.error_answer(status)
        server = _read(speaks, status, {"content-type": written.content_type}, written.body)
        fault = Fault(interaction=0, kind="status", status=status)
        headers, body = status_answer(fault, speaks.name)
        chaos = _read(speaks, status, headers, body)
        paths = {
            "server": server,
            "chaos": chaos,
            "sdk": sdk.get(status, "no error"),
            "predicted": fault_code(fault, speaks.name) or "none",
        }
        if len(set(paths.values())) != 1:
            disagreements.append((status, paths))
    assert disagreements == []


@pytest.mark.parametrize("speaks", FORMATS, ids=IDS)
@pytest.mark.parametrize("status", CONTEXT_STATUSES)
def test_a_context_refusal_reads_as_predicted(speaks: WireFormat, status: int) -> None:
    fault = Fault(interaction=0, kind="status", status=status, context=True)
    headers, body = status_answer(fault, speaks.name)
    code = _read(speaks, status, headers, body)
    assert code == fault_code(fault, speaks.name)
    if status == 400:
        assert code == "CONTEXT_WINDOW_EXCEEDED"


@pytest.mark.parametrize("speaks", FORMATS, ids=IDS)
@pytest.mark.parametrize("wait", [None, 9])
def test_the_server_and_a_fault_send_the_same_body(speaks: WireFormat, wait: int | None) -> None:
    fault = Fault(interaction=0, kind="status", status=429, retry_after=wait)
    headers, body = status_answer(fault, speaks.name)
    written = speaks.error_answer(429, retry_after=wait)
    assert (headers["content-type"], body) == (written.content_type, written.body)


def _served_body(speaks: WireFormat) -> bytes:
    """A streamed reply's body as the loopback server sends it."""
    path, body = _streamed_request(speaks.name)
    with LoopbackModelServer([TextResponse("Hello there", piece=3)]) as server:
        url = server.base_url.removesuffix("/v1") + path
        answer = httpx2.post(url, json=body, headers={"authorization": "k"})
    return answer.content


def _served_stream(speaks: WireFormat) -> list[object]:
    """The parsed data of each event of a streamed reply as the loopback server sends it."""
    datas: list[object] = []
    for line in _served_body(speaks).decode("utf-8").splitlines():
        if line.startswith("data:"):
            text = line[5:].strip()
            try:
                datas.append(json.loads(text))
            except ValueError:
                datas.append(text)
    return datas


def _streamed_request(wire: str) -> tuple[str, dict[str, object]]:
    """A streamed request's path and body in format ``wire``."""
    hello = [{"role": "user", "content": "Hello"}]
    if wire == "anthropic-messages":
        return "/v1/messages", {"model": "m", "max_tokens": 16, "messages": hello, "stream": True}
    if wire == "openai-responses":
        return "/v1/responses", {"model": "m", "input": "Hello", "stream": True}
    if wire == "gemini":
        contents = [{"role": "user", "parts": [{"text": "Hello"}]}]
        return "/v1beta/models/m:streamGenerateContent?alt=sse", {"contents": contents}
    return "/v1/chat/completions", {"model": "m", "messages": hello, "stream": True}


def _finishes(speaks: WireFormat, events: list[object]) -> bool | str:
    """True when the reader finishes the reply, else the code it raises."""
    reader = speaks.reader(request_id=None)
    try:
        for data in events:
            reader.feed(data)
        return any(isinstance(chunk, FinishChunk) for chunk in reader.finish())
    except LlmError as exc:
        return exc.code


@pytest.mark.parametrize("speaks", FORMATS, ids=IDS)
def test_the_end_event_is_where_the_reader_finishes(speaks: WireFormat) -> None:
    events = [data for data in _served_stream(speaks) if data != speaks.stream_done]
    end = speaks.reply_end(events)
    assert end is not None
    assert _finishes(speaks, events[:end]) == "STREAM_CLOSED"
    assert _finishes(speaks, events) is True


def _sdk_reads(speaks: WireFormat, script: Sequence[ScriptEntry]) -> list[str | None]:
    """The code the format's SDK model fails each answer of ``script`` with (None when
    it reads as a reply), served by the loopback server one answer after another."""
    codes: list[str | None] = []

    async def run(server: LoopbackModelServer) -> None:
        model = model_for(speaks.name, "m", base_url=server.base_url, api_key="k", max_retries=0)
        request = ModelRequest(messages=[{"role": "user", "content": "Hello"}])
        try:
            for _ in script:
                try:
                    async for _chunk in model.stream(request):
                        pass
                    codes.append(None)
                except LlmError as exc:
                    codes.append(exc.code)
        finally:
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()

    with LoopbackModelServer(script) as server:
        anyio.run(run, server)
    server.assert_consumed()
    return codes


@pytest.mark.parametrize("speaks", FORMATS, ids=IDS)
def test_a_spoiled_stream_fails_its_sdk_as_the_fault_model_reads_it(speaks: WireFormat) -> None:
    whole = _served_body(speaks)
    positions = range(len(_served_stream(speaks)) + 1)
    faults = [
        Fault(interaction=0, kind="truncated", at=at, done=done)
        for at in positions
        for done in (False, True)
    ] + [Fault(interaction=0, kind="keep-alive-flood", at=at, lines=3) for at in (0, 2)]
    bodies = [spoiled_body(fault, speaks.name, whole) for fault in faults]
    predicted = [
        reader_code(speaks.name, body)
        if fault.kind == "truncated"
        else (None if speaks.provider.sdk_skips_comments else "MALFORMED_RESPONSE")
        for fault, body in zip(faults, bodies, strict=True)
    ]
    assert _sdk_reads(speaks, [MalformedResponse(body) for body in bodies]) == predicted
    assert {code for code in predicted if code} <= {
        "STREAM_CLOSED",
        "EMPTY_RESPONSE",
        "MALFORMED_RESPONSE",
    }
    assert "STREAM_CLOSED" in predicted

"""What a ``status`` fault answers, read by each format's real model and SDK client.

A 429 carries the ``retry-after`` header into the failure's ``retry_after``; the error
body has the shape of its format, so the model names the documented code; a fault is
served once and the same recorded response answers the next request.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2
import pytest

from harness_conformance.chaos import (
    Fault,
    ReplayTransport,
    no_cuts,
    replay_with_fault,
    sdk_client,
    served_responses,
)
from harness_conformance.chaos._faults import status_answer
from harness_conformance.errors import LlmError
from harness_conformance.events import FinishChunk
from harness_conformance.models import ModelRequest, model_for
from harness_conformance.wire import format_named

LOOPBACK = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "loopback"
FORMATS = [
    ("openai-chat", LOOPBACK / "plain_text.yaml", "http://replay.invalid/v1"),
    (
        "anthropic-messages",
        LOOPBACK / "anthropic-messages" / "plain_text.yaml",
        "http://replay.invalid/v1",
    ),
    (
        "openai-responses",
        LOOPBACK / "openai-responses" / "plain_text.yaml",
        "http://replay.invalid/v1",
    ),
    ("gemini", LOOPBACK / "gemini" / "plain_text.yaml", "http://replay.invalid/v1beta"),
]
IDS = [wire for wire, _, _ in FORMATS]


def _two_calls(wire: str, path: Path, base_url: str, fault: Fault) -> tuple[object, list[str]]:
    """The failure of the faulted call and the finish kinds of the call after it."""
    outcome: list[object] = []
    kinds: list[str] = []

    async def run() -> None:
        served = served_responses(path)
        transport = ReplayTransport(list(served.values()), no_cuts, fault=fault, wire=wire)
        async with httpx2.AsyncClient(transport=transport) as http:
            model = model_for(wire, "replay-model", client=sdk_client(wire, base_url, http))
            request = ModelRequest(messages=[{"role": "user", "content": "Hello"}])
            try:
                async for chunk in model.stream(request):
                    if isinstance(chunk, FinishChunk):
                        outcome.append(chunk.reason)
            except LlmError as exc:
                outcome.append(exc)
            async for chunk in model.stream(request):
                if isinstance(chunk, FinishChunk):
                    kinds.append(str(chunk.reason["kind"]))
        assert [seen.fault for seen in transport.requests] == [fault.kind, None]
        assert transport.exhausted

    anyio.run(run)
    return outcome[0], kinds


@pytest.mark.parametrize(("wire", "path", "base_url"), FORMATS, ids=IDS)
@pytest.mark.parametrize("wait", [None, 7])
def test_a_429_is_rate_limit_with_the_header_s_retry_after(
    wire: str, path: Path, base_url: str, wait: int | None
) -> None:
    fault = Fault(interaction=0, kind="status", status=429, retry_after=wait)
    failure, after = _two_calls(wire, path, base_url, fault)
    assert isinstance(failure, LlmError)
    assert failure.code == "RATE_LIMIT"
    assert failure.failure.status == 429
    assert failure.failure.retry_after == (None if wait is None else float(wait))
    assert after == ["stop"]


@pytest.mark.parametrize(("wire", "path", "base_url"), FORMATS, ids=IDS)
@pytest.mark.parametrize(
    ("status", "context", "code"),
    [
        (500, False, "SERVER"),
        (502, False, "SERVER"),
        (503, False, "SERVER"),
        (400, True, "CONTEXT_WINDOW_EXCEEDED"),
    ],
)
def test_an_error_status_names_its_code_in_every_format(
    wire: str, path: Path, base_url: str, status: int, context: bool, code: str
) -> None:
    fault = Fault(interaction=0, kind="status", status=status, context=context)
    failure, after = _two_calls(wire, path, base_url, fault)
    assert isinstance(failure, LlmError)
    assert (failure.code, failure.failure.status) == (code, status)
    assert after == ["stop"]


@pytest.mark.parametrize("wire", IDS)
def test_the_error_body_has_its_format_s_shape(wire: str) -> None:
    headers, body = status_answer(
        Fault(interaction=0, kind="status", status=429, retry_after=3), wire
    )
    content_type = format_named(wire).error_answer(429).content_type
    assert headers == {"content-type": content_type, "retry-after": "3"}
    shaped = json.loads(body)
    error = shaped["error"]
    assert error["message"] == "Too Many Requests"
    if wire == "anthropic-messages":
        assert shaped["type"] == "error"
        assert error["type"] == "rate_limit_error"
    elif wire == "gemini":
        assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
        assert error["details"][0]["retryDelay"] == "3s"
    else:
        assert (error["type"], error["code"]) == ("requests", "rate_limit_exceeded")


def test_a_fault_the_cassette_cannot_take_is_refused_before_the_replay() -> None:
    path = LOOPBACK / "rate_limit_retry.yaml"
    with pytest.raises(ValueError, match=r"rate_limit_retry\.yaml: interaction 0 \(HTTP 429\)"):
        replay_with_fault(path, Fault(interaction=0, kind="truncated"))
    with pytest.raises(ValueError, match=r"interaction 9, which is no model call.*\[0, 1\]"):
        replay_with_fault(path, Fault(interaction=9, kind="stall"))
    with pytest.raises(ValueError, match="retries counts from 0"):
        replay_with_fault(path, Fault(interaction=1, kind="stall"), retries=-1)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "hang"}, "unknown fault kind 'hang'"),
        ({"kind": "status", "status": 99}, "status must lie in 100-599"),
        ({"kind": "stall", "at": -1}, "count from 0"),
    ],
)
def test_a_fault_refuses_bad_fields(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Fault(interaction=0, **fields)  # type: ignore[arg-type]

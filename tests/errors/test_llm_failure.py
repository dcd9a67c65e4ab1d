"""`LlmFailure` refuses facts that could not be logged and read back, naming the field."""

from __future__ import annotations

import math
import pickle
from http import HTTPStatus
from typing import Any

import pytest

from harness_conformance.errors import LlmError, LlmFailure


@pytest.mark.parametrize(
    ("fields", "error", "field"),
    [
        ({"message": ""}, ValueError, "message"),
        ({"message": 1}, TypeError, "message"),
        ({"message": None}, TypeError, "message"),
        ({"code": ""}, ValueError, "code"),
        ({"code": 1}, TypeError, "code"),
        ({"status": 42}, ValueError, "status"),
        ({"status": 99}, ValueError, "status"),
        ({"status": 600}, ValueError, "status"),
        ({"status": -429}, ValueError, "status"),
        ({"status": 429.0}, TypeError, "status"),
        ({"status": "429"}, TypeError, "status"),
        ({"status": True}, TypeError, "status"),
        ({"retry_after": math.nan}, ValueError, "retry_after"),
        ({"retry_after": math.inf}, ValueError, "retry_after"),
        ({"retry_after": -math.inf}, ValueError, "retry_after"),
        ({"retry_after": 0}, ValueError, "retry_after"),
        ({"retry_after": 0.0}, ValueError, "retry_after"),
        ({"retry_after": -1.5}, ValueError, "retry_after"),
        ({"retry_after": "2"}, TypeError, "retry_after"),
        ({"retry_after": False}, TypeError, "retry_after"),
        ({"request_id": ""}, ValueError, "request_id"),
        ({"request_id": 1}, TypeError, "request_id"),
        ({"request_id": b"req-1"}, TypeError, "request_id"),
    ],
    ids=repr,
)
def test_odd_facts_are_refused_naming_the_field(
    fields: dict[str, Any], error: type[Exception], field: str
) -> None:
    given: dict[str, Any] = {"message": "busy", "code": "RATE_LIMIT", **fields}
    with pytest.raises(error, match=rf"\bLlmFailure {field}\b"):
        LlmFailure(**given)


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"status": 100},
        {"status": 599},
        {"status": HTTPStatus.TOO_MANY_REQUESTS},
        {"retry_after": 1},
        {"retry_after": 1.5},
        {"retry_after": 5e-324},
        {"request_id": "req-7"},
        {"request_id": " "},
        {"code": "UNKNOWN"},
        {"code": "NETWORK_BLOCKED"},
    ],
    ids=repr,
)
def test_well_formed_facts_are_kept(fields: dict[str, Any]) -> None:
    given: dict[str, Any] = {"message": "busy", "code": "RATE_LIMIT", **fields}
    failure = LlmFailure(**given)
    assert {name: getattr(failure, name) for name in given} == given


def test_a_failure_survives_pickling() -> None:
    failure = LlmFailure("busy", "RATE_LIMIT", status=429, retry_after=1.5, request_id="r")
    assert pickle.loads(pickle.dumps(failure)) == failure
    error = LlmError(failure)
    assert pickle.loads(pickle.dumps(error)).failure == failure


def test_llm_error_still_accepts_only_its_own_codes() -> None:
    # A failure may carry any non-empty code (the loop reports UNKNOWN with one);
    # raising it as an LlmError requires a provider code.
    failure = LlmFailure("adapter failed", "UNKNOWN")
    with pytest.raises(ValueError, match="LlmError cannot carry code 'UNKNOWN'"):
        LlmError(failure)

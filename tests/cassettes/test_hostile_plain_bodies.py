"""Plain bodies are held to the body size limit like decoded ones: a body larger than
`MAX_BODY_BYTES` (or ``HARNESS_CONFORMANCE_MAX_BODY_BYTES``) is ``CASSETTE_CORRUPT`` with
the same message, naming the file and the interaction, when ``replay`` reads it, when the
plugin loads it and when a response is recorded. A 100 MB single ``data:`` line runs in
a child with a memory limit: read in full, it would take about ten times its size."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness_conformance.cassettes import (
    CassettePersister,
    decoded_response,
    load_foreign_cassette,
    serialize,
    serializer,
)
from harness_conformance.cassettes._decompress import MAX_BODY_BYTES_ENV, BodyTooLarge
from harness_conformance.errors import CassetteError

SSE = {"Content-Type": ["text/event-stream"]}
MIB = 1024 * 1024


def _one_line_stream(size: int) -> str:
    chunk = {"choices": [{"index": 0, "delta": {"content": "x" * size}}]}
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"


def _json_cassette(path: Path, body: str, request_body: str | None = None) -> Path:
    interaction: dict[str, Any] = {
        "request": {
            "body": request_body,
            "headers": {},
            "method": "POST",
            "uri": "https://api.example.test/v1/chat/completions",
        },
        "response": {
            "body": {"string": body},
            "headers": SSE,
            "status": {"code": 200, "message": "OK"},
        },
    }
    path.write_text(json.dumps({"interactions": [interaction], "version": 1}), encoding="utf-8")
    return path


def _persisted(path: Path) -> object:
    return CassettePersister().load_cassette(path, serializer)


def test_a_plain_body_past_the_limit_is_refused_by_both_loaders(
    hostile: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(hostile.stock_cassette(_one_line_stream(2 * MIB), SSE), encoding="utf-8")
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, str(MIB))
    for load in (load_foreign_cassette, _persisted):
        with pytest.raises(CassetteError) as caught:
            load(path)
        assert caught.value.code == "CASSETTE_CORRUPT"
        message = str(caught.value)
        assert str(path) in message
        assert "interaction 0" in message
        assert "the body is larger than the body size limit of 1,048,576 bytes" in message
        assert MAX_BODY_BYTES_ENV in message
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, str(3 * MIB))
    [interaction] = load_foreign_cassette(path)
    assert interaction.body_kind == "sse"
    assert _persisted(path)


def test_a_request_body_past_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = json.dumps({"model": "m", "messages": [{"role": "user", "content": "y" * MIB}]})
    path = _json_cassette(tmp_path / "request.json", _one_line_stream(10), request)
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, str(MIB // 2))
    for load in (load_foreign_cassette, _persisted):
        with pytest.raises(CassetteError, match="body size limit of 524,288 bytes"):
            load(path)


def test_text_is_measured_in_utf8_bytes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # 300,000 characters of four bytes each: 1.2 MB, over a 1 MiB limit.
    path = _json_cassette(tmp_path / "wide.json", "\U0001f600" * 300_000)
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, str(MIB))
    with pytest.raises(CassetteError, match="body size limit of 1,048,576 bytes"):
        load_foreign_cassette(path)


def test_recording_a_plain_body_past_the_limit_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    response: dict[str, Any] = {
        "status": {"code": 200, "message": "OK"},
        "headers": SSE,
        "body": {"string": _one_line_stream(2 * MIB).encode()},
    }
    request: dict[str, Any] = {
        "method": "POST",
        "uri": "https://api.example.test/v1",
        "body": None,
        "headers": {},
    }
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, str(MIB))
    with pytest.raises(BodyTooLarge, match="the body is larger than the body size limit"):
        decoded_response(response)
    with pytest.raises(BodyTooLarge):
        serialize({"interactions": [{"request": request, "response": response}]})


@pytest.mark.slow
def test_a_100_mb_data_line_is_refused_within_a_memory_limit(
    hostile: SimpleNamespace, tmp_path: Path
) -> None:
    path = _json_cassette(tmp_path / "huge.json", _one_line_stream(100 * MIB))
    out = hostile.run_bounded(
        f"""
        from harness_conformance.cassettes.foreign import replay_foreign
        from harness_conformance.errors import CassetteError
        try:
            replay_foreign({str(path)!r})
        except CassetteError as exc:
            print(exc.code, exc)
        """,
        memory=1024 * MIB,
    )
    assert out.startswith(f"CASSETTE_CORRUPT {path}"), out
    assert "body size limit of 67,108,864 bytes" in out

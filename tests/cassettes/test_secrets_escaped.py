"""A key a stream event or a JSON body spells with JSON escapes (``\\u0073k-...``) is
still found: format 2 keeps a stream's text as sent, so the text scan alone would not
see it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness_conformance.cassettes import find_secrets, refuse_secrets, serialize
from harness_conformance.cli import main
from harness_conformance.errors import CassetteError

KEY = "sk-proj-" + "Q9w8E7r6T5y4U3i2O1p0A9s8D7f6G5h4"
ESCAPED = "".join(f"\\u{ord(char):04x}" for char in KEY)
HALF = KEY[:12] + "".join(f"\\u{ord(char):04x}" for char in KEY[12:])


def _cassette(stream: str) -> dict[str, Any]:
    request = {
        "method": "POST",
        "uri": "https://api.openai.com/v1/chat/completions",
        "body": '{"model":"gpt","stream":true}',
        "headers": {"Content-Type": ["application/json"]},
    }
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Type": ["text/event-stream"]},
        "body": {"string": stream},
    }
    return {"version": 1, "interactions": [{"request": request, "response": response}]}


def _stream(content: str) -> str:
    event = '{"choices":[{"index":0,"delta":{"content":"' + content + '"}}]}'
    return f"data: {event}\n\ndata: [DONE]\n\n"


@pytest.mark.parametrize("spelling", [ESCAPED, HALF], ids=["all escaped", "half escaped"])
def test_an_escaped_key_in_one_stream_event_is_found(spelling: str) -> None:
    text = serialize(_cassette(_stream(f"here: {spelling}")))
    assert spelling in text  # the stream is kept as sent
    [finding] = find_secrets(text)
    assert "written with escapes in a stream event" in finding.kind
    assert finding.field == "interactions[0].response.body.sse[0].data"
    assert finding.length == len(KEY)
    assert text.splitlines()[finding.line - 1].lstrip().startswith("data:")
    with pytest.raises(CassetteError, match="secret-looking token") as raised:
        refuse_secrets(text, path="c.yaml")
    assert KEY not in str(raised.value)


def test_an_escaped_key_in_a_json_body_block_is_found() -> None:
    text = serialize(_cassette(_stream("fine")))
    line = next(row for row in text.splitlines() if '"model"' in row)
    text = text.replace(line, line.replace('"gpt"', f'"{ESCAPED}"'))
    [finding] = find_secrets(text)
    assert finding.kind.endswith("written with escapes in a JSON body")
    assert finding.field == "interactions[0].request.body.json"


def test_a_key_written_plainly_is_reported_once() -> None:
    text = serialize(_cassette(_stream(f"{KEY} and again {ESCAPED}")))
    findings = find_secrets(text)
    assert len(findings) == 1
    assert "escapes" not in findings[0].kind


def test_escapes_of_harmless_text_are_not_findings() -> None:
    harmless = "".join(f"\\u{ord(char):04x}" for char in "sk-short") + " caf\\u00e9"
    assert find_secrets(serialize(_cassette(_stream(harmless)))) == []


def test_replay_refuses_a_cassette_with_an_escaped_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "escaped.yaml"
    cassette.write_text(serialize(_cassette(_stream(ESCAPED))), encoding="utf-8")
    assert main(["replay", str(cassette)]) == 1
    out = capsys.readouterr().out
    assert "CASSETTE_SECRET" in out
    assert KEY not in out


@pytest.mark.parametrize("escape", ["\\x{:02x}", "\\u{:04x}"], ids=["x", "u"])
def test_an_escaped_key_in_a_quoted_yaml_string_is_found(escape: str) -> None:
    spelled = "".join(escape.format(ord(char)) for char in KEY)
    text = (
        "interactions:\n- request:\n    method: GET\n    uri: https://example.com/\n"
        "    body: null\n    headers: {}\n  response:\n    status: {code: 200, message: OK}\n"
        f'    headers: {{}}\n    body: {{string: "token {spelled}"}}\n'
    )
    [finding] = find_secrets(text)
    assert finding.kind.endswith("written with escapes in a quoted YAML string")
    assert finding.field == "interactions[0].response.body.string"

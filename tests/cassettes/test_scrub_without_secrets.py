"""Without a secret to replace, the scrubber leaves a streamed body as it is (the same
text, no parse); with one, a secret cut across the stream's events is still replaced."""

from __future__ import annotations

import json

import pytest

from harness_conformance.cassettes._scrub import Scrubber, scrub_stream
from harness_conformance.redaction import REDACTED, SECRET_ENV_VARS, Redactor, Secret

KEY = "sk-" + "split" * 6


def stream(*pieces: str) -> str:
    events = [{"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in pieces]
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"


def test_a_redactor_without_secrets_leaves_the_text_itself() -> None:
    text = stream("hello ", KEY[:10], KEY[10:])
    assert scrub_stream(text, Redactor(())) is text


def test_a_secret_cut_across_events_is_still_replaced() -> None:
    text = stream("your key is ", KEY[:10], KEY[10:], " ok")
    scrubbed = scrub_stream(text, Redactor([Secret(KEY)]))
    joined = "".join(
        json.loads(line[6:])["choices"][0]["delta"]["content"]
        for line in scrubbed.splitlines()
        if line.startswith("data: {")
    )
    assert joined == f"your key is {REDACTED} ok"


@pytest.mark.parametrize("as_bytes", [False, True])
def test_a_scrubber_without_secrets_keeps_a_streamed_response(
    as_bytes: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    text = stream("a", "b")
    body = text.encode() if as_bytes else text
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"content-type": ["text/event-stream"], "set-cookie": ["s=1"]},
        "body": {"string": body},
    }
    scrubbed = Scrubber().scrub_response(response)
    assert scrubbed["body"]["string"] == body
    assert "set-cookie" not in scrubbed["headers"]

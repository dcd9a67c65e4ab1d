"""Scrubbing and the secret scanner: credential headers dropped, live values replaced
everywhere, secret-looking tokens refused without being printed, and no false alarm on
the real third-party cassettes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import (
    REDACTED,
    SECRET_ENV_VARS,
    Scrubber,
    Secret,
    find_secrets,
    live_secrets,
    refuse_secrets,
    serialize,
    sse_items,
)
from harness_conformance.errors import CassetteError

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "cassettes"
KEY = "sk-live-" + "Q7v2Lm9Xc4Rt8Wp1Zs6Kd3Nb"


@pytest.fixture(autouse=True)
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's real keys."""
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def vcr_response(body: Any, **headers: list[str]) -> dict[str, Any]:
    return {"status": {"code": 200, "message": "OK"}, "headers": headers, "body": {"string": body}}


# -- scrubbing ---------------------------------------------------------------------------


def test_live_secrets_combine_given_values_and_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "deepseek-env-value-1234")
    monkeypatch.setenv("OPENAI_API_KEY", "short")
    assert live_secrets([KEY, "tiny"]) == (Secret(KEY), Secret("deepseek-env-value-1234"))


def test_the_scrubber_reads_the_environment_when_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    scrubber = Scrubber()
    assert not scrubber.secrets
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert scrubber.secrets == (Secret(KEY),)


def test_requests_lose_credential_headers_and_every_copy_of_the_key() -> None:
    body = json.dumps({"messages": [{"role": "user", "content": f"my key is {KEY}"}]})
    original = Request(
        "POST",
        f"https://api.example.com/v1/chat?key={KEY}&other=1&enc=sk-live-%2B{KEY[8:]}",
        body,
        {
            "Authorization": f"Bearer {KEY}",
            "api-key": KEY,
            "X-Api-Key": KEY,
            "Cookie": "session=abc",
            "OpenAI-Organization": "org-123",
            "OpenAI-Project": "proj_123",
            "X-Echo": f"prefix {KEY}",
            "Content-Type": "application/json",
        },
    )
    scrubbed = Scrubber([KEY]).scrub_request(original)
    assert dict(scrubbed.headers) == {
        "X-Echo": f"prefix {REDACTED}",
        "Content-Type": "application/json",
    }
    assert (
        scrubbed.uri
        == f"https://api.example.com/v1/chat?key={REDACTED}&other=1&enc=sk-live-%2B{KEY[8:]}"
    )
    assert json.loads(scrubbed.body)["messages"][0]["content"] == f"my key is {REDACTED}"
    assert original.headers["Authorization"] == f"Bearer {KEY}", "the original is left alone"


def test_percent_encoded_and_json_escaped_keys_are_replaced_too() -> None:
    odd = "key/with+odd=chars/0123"
    original = Request(
        "GET",
        "https://h/x?k=key%2Fwith%2Bodd%3Dchars%2F0123&q=key%2Fwith%2Bodd%3Dchars%2F0123",
        json.dumps({"k": odd, "u": "ké"}, ensure_ascii=True).replace("/", "\\/"),
        {},
    )
    scrubbed = Scrubber([odd]).scrub_request(original)
    assert "0123" not in scrubbed.uri
    assert scrubbed.uri.count(REDACTED) == 2


def test_responses_lose_cookies_and_the_key_in_sse_and_compressed_bodies() -> None:
    stream = f'data: {{"echo":"{KEY}"}}\n\ndata: [DONE]\n\n'.encode()
    response = vcr_response(
        gzip.compress(stream),
        **{"Set-Cookie": ["__cf_bm=abc"], "Content-Encoding": ["gzip"], "X-Key": [KEY]},
    )
    scrubbed = Scrubber([KEY]).scrub_response(response)
    assert scrubbed["body"]["string"] == stream.replace(KEY.encode(), REDACTED.encode())
    assert scrubbed["headers"] == {"X-Key": [REDACTED]}
    assert response["headers"]["Set-Cookie"] == ["__cf_bm=abc"], "the original is left alone"


def test_a_scrubbed_cassette_has_the_placeholder_in_structured_yaml() -> None:
    scrubber = Scrubber([KEY])
    request = Request("POST", "https://h/v1/chat/completions", json.dumps({"k": KEY}), {})
    response = vcr_response(f'data: {{"k":"{KEY}"}}\n\n', **{"content-type": ["text/event-stream"]})
    scrubbed = scrubber.scrub_cassette({"requests": [request], "responses": [response]})
    text = serialize(
        {
            "version": 1,
            "interactions": [
                {
                    "request": scrubbed["requests"][0]._to_dict(),
                    "response": scrubbed["responses"][0],
                }
            ],
        }
    )
    assert KEY not in text
    stored = yaml.safe_load(text)["interactions"][0]
    assert json.loads(stored["request"]["body"]["json"]) == {"k": REDACTED}
    events = (sse_items(stored["response"]["body"]["sse"]) or ([], "", ""))[0]
    assert events == [{"data": {"k": REDACTED}}]


# -- the scanner -------------------------------------------------------------------------

# Fake keys are assembled from two literals so this file itself holds no key-shaped text.
FAKE_BODY = "Ab3dEf6hIj9kLm2nOp5qRs8t"
POSITIVES = [
    ("note: sk-" + "proj-" + FAKE_BODY + "\n", "OpenAI-style API key"),
    ("k: gsk" + "_" + FAKE_BODY + "Uv1w\n", "Groq API key"),
    ("k: xai-Ab3dEf6hIj9kLm2nOp5qRs8tUv1w\n", "xAI API key"),
    ("k: AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6q\n", "Google API key"),
    ("authorization: Bearer " + "eyJhbGciOiJIUzI1NiJ9.abc123def456\n", "bearer token"),
    ("uri: https://h/x?api_key=0123456789abcdef0123456789abcdef\n", "long hex key"),
    ("x-api-key:\n- 0123456789abcdef0123456789abcdef\n", "long hex key"),
    ('body: {"token": "QWxhZGRpbjpvcGVuIHNlc2FtZQ9Zx3Lw7Kp2Vn8Rt4Ys1Bd"}\n', "long base64 key"),
    (f"echo: my-own-key-{'9' * 3}value\n", "live API key value"),
]


@pytest.mark.parametrize(("text", "kind"), POSITIVES)
def test_secret_looking_tokens_are_found(text: str, kind: str) -> None:
    findings = find_secrets(text, secrets=["my-own-key-999value"])
    assert [f.kind for f in findings if kind in f.kind], findings


NEGATIVES = [
    "authorization: Bearer <redacted>\n",
    "name: task-" + FAKE_BODY + "Uv\n",
    "authorization: Bearer test_openai_api_key\n",
    "authorization: AUTHORIZATION-XXX\n",
    "k: sk-XXXXXXXXXXXXXXXXXXXXXXXXXXXX\n",
    "k: sk-proj-redacted-redacted-redacted\n",
    "x-request-id:\n- req_0123456789abcdef0123456789abcdef\n",
    "traceparent:\n- 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n",
    "content: the fix is in commit 3f786850e387550fdab836ed7e6dc881de23001b\n",
    "id: chatcmpl-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n",
    "string: !!binary |\n"
    "  H4sIAAAAAAAAA6tWKkktLlGyUlAqS8wpTtVRUEpLzS1OyUxRslIqS8wpTtVRUEpLzS1OyUxR\n",
    "task: look up the visible key in the dict\n",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_ids_hashes_placeholders_and_binary_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


def test_findings_name_kind_interaction_side_field_and_position() -> None:
    text = serialize(
        {
            "version": 1,
            "interactions": [
                {
                    "request": {"method": "GET", "uri": "https://h/", "body": None, "headers": {}},
                    "response": vcr_response("{}"),
                },
                {
                    "request": {
                        "method": "POST",
                        "uri": "https://h/",
                        "body": json.dumps({"messages": [{"content": f"key {KEY}"}]}),
                        "headers": {},
                    },
                    "response": vcr_response("{}"),
                },
            ],
        }
    )
    [finding] = find_secrets(text)
    line = text.splitlines()[finding.line - 1]
    assert line[finding.column - 1 :].startswith(KEY)
    assert finding.field == "interactions[1].request.body.json.messages[0].content"
    assert finding.describe() == (
        f"an OpenAI-style API key (sk-...), {len(KEY)} characters, at interaction 1, request, "
        f"field body.json.messages[0].content (line {finding.line}, column {finding.column})"
    )


def test_refusing_names_the_file_and_never_prints_the_secret() -> None:
    text = f"interactions:\n- request:\n    uri: https://h/?key={KEY}\n"
    with pytest.raises(CassetteError) as caught:
        refuse_secrets(text, path="cassettes/t.yaml")
    error = caught.value
    assert error.code == "CASSETTE_SECRET"
    assert error.path == "cassettes/t.yaml"
    assert KEY not in str(error)
    assert KEY[8:] not in str(error)
    assert "interaction 0, request, field uri" in error.message
    assert "Nothing was written" in error.message


def test_refusing_lists_at_most_five_findings() -> None:
    text = "".join(f"k{i}: sk-" + f"proj-{FAKE_BODY}{i}\n" for i in range(7))
    with pytest.raises(CassetteError, match=r"7 secret-looking token\(s\).*and 2 more"):
        refuse_secrets(text, path=None)


def test_a_clean_text_passes() -> None:
    refuse_secrets("interactions: []\nversion: 1\n", path="x.yaml")


def corpus_files() -> list[Path]:
    return sorted(CORPUS.rglob("*.yaml"))


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the corpus copy at {CORPUS} is not there yet")
def test_no_real_third_party_cassette_trips_the_scanner() -> None:
    files = corpus_files()
    assert len(files) == 61
    tripped = {
        str(path.relative_to(CORPUS)): [finding.describe() for finding in findings]
        for path in files
        if (findings := find_secrets(path.read_text(encoding="utf-8")))
    }
    assert tripped == {}


def test_a_key_inside_a_bearer_token_is_reported_once() -> None:
    text = "authorization: Bearer sk-" + "proj-" + FAKE_BODY + "\nnote: sk-proj-" + FAKE_BODY + "\n"
    findings = find_secrets(text)
    assert [f.line for f in findings] == [1, 2]
    assert "bearer" in findings[0].kind
    assert "OpenAI-style API key" in findings[1].kind

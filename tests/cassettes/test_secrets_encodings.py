"""A declared key in the spellings a server may echo it in: cut across stream deltas,
base64-encoded, ``\\u``-escaped, percent-encoded. Each is scrubbed before a cassette is
written, and the scanner finds each one in a text the scrubber never saw."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import (
    REDACTED,
    SECRET_ENV_VARS,
    SECRET_HEADERS,
    CassettePersister,
    Scrubber,
    find_secrets,
    refuse_secrets,
    serialize,
    serializer,
)
from harness_conformance.errors import CassetteError

# Key-shaped values are assembled from parts so no line of this file looks like one.
KEY = "sk-live-" + "Q7v2Lm9Xc4Rt8Wp1Zs6Kd3Nb"
UNDECLARED = "gsk" + "_" + "Zx8Qw3Er6Ty9Ui2Op5As7Df1Gh4Jk0Lz8Xc3Vb6Nm9Qa2Ws5Ed"


@pytest.fixture(autouse=True)
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def sse(*contents: str) -> str:
    events = [
        "data: "
        + json.dumps(
            {"id": "c1", "choices": [{"index": 0, "delta": {"content": text}}]},
            separators=(",", ":"),
        )
        + "\n\n"
        for text in contents
    ]
    return "".join(events) + "data: [DONE]\n\n"


def response(body: str | bytes, content_type: str = "text/event-stream") -> dict[str, Any]:
    return {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Type": [content_type]},
        "body": {"string": body},
    }


def reassembled(body: str) -> str:
    return "".join(
        json.loads(line[6:])["choices"][0]["delta"]["content"]
        for line in body.split("\n\n")
        if line.startswith("data: {")
    )


def cassette_text(body: str, content_type: str = "text/event-stream") -> str:
    request = {"method": "POST", "uri": "https://h/v1/chat/completions", "body": None}
    return serialize(
        {
            "version": 1,
            "interactions": [
                {"request": {**request, "headers": {}}, "response": response(body, content_type)}
            ],
        }
    )


# -- cut across stream deltas ------------------------------------------------------------

SPLITS = [
    ("hello sk-li", KEY[5:12], KEY[12:] + " bye"),
    ("hello " + KEY[:1], KEY[1:] + " bye"),
    ("hello " + KEY[:-1], KEY[-1:] + " bye"),
    tuple(["hello "] + [KEY[i : i + 3] for i in range(0, len(KEY), 3)] + [" bye"]),
]


@pytest.mark.parametrize("pieces", SPLITS)
def test_a_key_cut_across_deltas_is_replaced_piece_by_piece(pieces: tuple[str, ...]) -> None:
    body = sse(*pieces)
    assert reassembled(body) == f"hello {KEY} bye"
    scrubbed = Scrubber([KEY]).scrub_response(response(body))["body"]["string"]
    assert reassembled(scrubbed) == f"hello {REDACTED} bye"
    assert scrubbed.count("data: {") == len(pieces), "no event was added or dropped"
    assert not any(len(part) > 2 and part in scrubbed for part in pieces[1:-1])
    assert find_secrets(cassette_text(scrubbed), [KEY]) == []


def test_the_scanner_finds_a_declared_key_cut_across_deltas_and_names_the_event() -> None:
    text = cassette_text(sse("one ", "two sk-li", KEY[5:12], KEY[12:] + "."))
    assert KEY not in text
    [finding] = find_secrets(text, [KEY])
    assert finding.kind == "a live API key value split across 3 stream events"
    assert finding.field == "interactions[0].response.body.sse[1].data.choices[0].delta.content"
    assert text.splitlines()[finding.line - 1].lstrip().startswith("data: {")
    with pytest.raises(CassetteError) as caught:
        refuse_secrets(text, path="cassettes/echo.yaml", secrets=[KEY])
    error = caught.value
    assert error.code == "CASSETTE_SECRET"
    assert error.path == "cassettes/echo.yaml"
    assert "cassettes/echo.yaml" in error.message
    assert "interaction 0, response, field body.sse[1]" in error.message
    assert f"line {finding.line}" in error.message
    assert KEY[5:] not in error.message


def test_an_undeclared_key_cut_across_deltas_refuses_the_save(tmp_path: Path) -> None:
    pieces = [UNDECLARED[i : i + 5] for i in range(0, len(UNDECLARED), 5)]
    cassette = {
        "requests": [Request("POST", "https://h/v1/chat/completions", b"{}", {})],
        "responses": [response(sse("token: ", *pieces))],
    }
    target = tmp_path / "echo.yaml"
    with pytest.raises(CassetteError) as caught:
        CassettePersister().save_cassette(target, cassette, serializer)
    assert caught.value.code == "CASSETTE_SECRET"
    assert "Groq API key (gsk_...) split across 11 stream events" in caught.value.message
    assert "interaction 0, response, field body.sse[1]" in caught.value.message
    assert list(tmp_path.iterdir()) == []


def test_a_stock_vcrpy_stream_is_reassembled_too() -> None:
    raw = {
        "interactions": [
            {
                "request": {"method": "POST", "uri": "https://h/", "body": None, "headers": {}},
                "response": response(sse("a sk-li", KEY[5:])),
            }
        ],
        "version": 1,
    }
    [finding] = find_secrets(yaml.safe_dump(raw), [KEY])
    assert finding.field == "interactions[0].response.body.string"
    assert "split across 2 stream events" in finding.kind


def test_ids_repeated_in_every_event_are_not_reassembled_into_a_finding() -> None:
    body = "".join(
        "data: " + json.dumps({"id": "sk-" if i % 2 else "abc", "x": "d"}) + "\n\n"
        for i in range(40)
    )
    assert find_secrets(cassette_text(body)) == []


# -- base64 ------------------------------------------------------------------------------

ENCODERS: list[tuple[str, Callable[[bytes], bytes]]] = [
    ("standard", base64.b64encode),
    ("urlsafe", base64.urlsafe_b64encode),
]


@pytest.mark.parametrize(("name", "encode"), ENCODERS)
@pytest.mark.parametrize("prefix", [b"", b"a", b"ab"])
@pytest.mark.parametrize("padded", [True, False])
def test_a_base64_encoded_key_is_replaced_at_every_alignment(
    name: str, encode: Callable[[bytes], bytes], prefix: bytes, padded: bool
) -> None:
    encoded = encode(prefix + KEY.encode() + b"?>~").decode()
    if not padded:
        encoded = encoded.rstrip("=")
    body = json.dumps({"blob": encoded, "name": name})
    scrubbed = Scrubber([KEY]).scrub_response(response(body, "application/json"))
    text = scrubbed["body"]["string"]
    assert REDACTED in text
    for start in range(3, len(encoded) - 12, 4):
        assert encoded[start : start + 8] not in text, "a run of the encoded key is left"
    assert find_secrets(cassette_text(body, "application/json"), [KEY])
    assert find_secrets(cassette_text(text, "application/json"), [KEY]) == []


@pytest.mark.parametrize(("name", "encode"), ENCODERS)
def test_a_key_encoded_on_its_own_leaves_no_character_behind(
    name: str, encode: Callable[[bytes], bytes]
) -> None:
    for padded in (True, False):
        encoded = encode(KEY.encode()).decode()
        encoded = encoded if padded else encoded.rstrip("=")
        request = Request("GET", f"https://h/?k={encoded}&n={name}", None, {})
        assert Scrubber([KEY]).scrub_request(request).uri == f"https://h/?k={REDACTED}&n={name}"


# -- JSON escapes and percent-encoding ----------------------------------------------------


def escaped(positions: Callable[[int], bool]) -> str:
    return "".join(
        f"\\u{ord(char):04{'x' if i % 3 else 'X'}}" if positions(i) else char
        for i, char in enumerate(KEY)
    )


@pytest.mark.parametrize(
    "positions",
    [lambda i: True, lambda i: i % 2 == 0, lambda i: i == 0, lambda i: i == len(KEY) - 1],
    ids=["all", "even", "first", "last"],
)
def test_a_json_escaped_key_is_replaced_in_a_raw_body(positions: Callable[[int], bool]) -> None:
    body = '{"echo":"' + escaped(positions) + '","n":1}'
    assert json.loads(body)["echo"] == KEY
    scrubbed = Scrubber([KEY]).scrub_response(response(body, "application/json"))
    assert json.loads(scrubbed["body"]["string"]) == {"echo": REDACTED, "n": 1}
    assert find_secrets(cassette_text(body, "text/plain"), [KEY])


@pytest.mark.parametrize("case", [str.upper, str.lower])
def test_a_fully_percent_encoded_key_is_replaced(case: Callable[[str], str]) -> None:
    encoded = "".join(case(f"%{byte:02x}") for byte in KEY.encode())
    request = Request("GET", f"https://h/?a={encoded}&b=1", None, {})
    assert Scrubber([KEY]).scrub_request(request).uri == f"https://h/?a={REDACTED}&b=1"
    assert find_secrets(f"uri: https://h/?a={encoded}\n", [KEY])


def test_google_api_key_header_is_dropped() -> None:
    assert "x-goog-api-key" in SECRET_HEADERS
    request = Request("GET", "https://h/", None, {"X-Goog-Api-Key": "k", "Accept": "*/*"})
    assert dict(Scrubber().scrub_request(request).headers) == {"Accept": "*/*"}


def test_stream_events_built_from_yaml_aliases_are_not_expanded() -> None:
    text = "a0: &a0 [x, x]\n"
    text += "".join(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, 40))
    text += "interactions:\n- response:\n    body:\n      sse:\n"
    text += "      - data: *a39\n      - data: *a39\n"
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(find_secrets(text)), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert found == [[]], "scanning 2**40 aliased strings must not be attempted"

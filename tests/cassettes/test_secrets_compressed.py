"""Keys inside base64 bodies are found: a gzip, deflate, brotli or zstd body (this library's
``binary:`` form and vcrpy's ``!!binary``), its layers named by ``content-encoding`` or,
without one, by the data's own header. Recording decodes a compressed request body before
scrubbing it and stores it decoded; the matcher compares a live compressed request with
it decoded; ``replay`` refuses a cassette with a key in such a body. No message shows the
value."""

from __future__ import annotations

import base64
import gzip
import http.server
import json
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import brotli  # type: ignore[import-untyped]
import httpx2
import pytest
import yaml
import zstandard
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import (
    Scrubber,
    find_secrets,
    json_body_matcher,
    make_vcr,
    use_cassette,
)
from harness_conformance.cli import main

KEY = "sk-proj-" + "Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc"
DECLARED = "declared" + "-secret-" + "f00dfeedc0ffee"
URL = "https://api.openai.com/v1/chat/completions"
BODY = json.dumps({"model": "gpt", "messages": [{"role": "user", "content": f"use {KEY}"}]})


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


ENCODED = {
    "gzip": gzip.compress,
    "deflate": zlib.compress,
    "raw deflate": _raw_deflate,
    "br": brotli.compress,
    "zstd": zstandard.ZstdCompressor().compress,
}


def _stock(request_body: bytes, headers: dict[str, list[str]]) -> str:
    """A stock vcrpy cassette whose request body is ``!!binary``."""
    interaction = {
        "request": {"method": "POST", "uri": URL, "body": request_body, "headers": headers},
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": ["application/json"]},
            "body": {"string": '{"choices":[]}'},
        },
    }
    return yaml.safe_dump({"version": 1, "interactions": [interaction]})


def _own(response_body: bytes, encoding: str) -> str:
    """A format-2 cassette whose response body is kept as ``binary:``."""
    return (
        "harness_conformance:\n  format: 2\ninteractions:\n- request:\n    method: POST\n"
        f"    uri: {URL}\n    body: null\n    headers: {{}}\n  response:\n"
        "    status: {code: 200, message: OK}\n"
        f"    headers:\n      content-encoding: {encoding}\n"
        f"    body:\n      binary: {base64.b64encode(response_body).decode()}\n"
        "version: 1\n"
    )


@pytest.mark.parametrize("encoding", list(ENCODED))
def test_a_key_in_a_compressed_request_body_is_found(encoding: str) -> None:
    header = "deflate" if encoding == "raw deflate" else encoding
    text = _stock(ENCODED[encoding](BODY.encode()), {"Content-Encoding": [header]})
    assert KEY not in text
    findings = find_secrets(text)
    assert [finding.field for finding in findings] == ["interactions[0].request.body"]
    assert findings[0].kind == f"an OpenAI-style API key (sk-...) inside a {header}-compressed body"
    assert findings[0].length == len(KEY)
    assert findings[0].line == text.splitlines().index("    body: !!binary |") + 1


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "zstd"])
def test_without_a_header_the_data_says_what_it_is(encoding: str) -> None:
    text = _stock(ENCODED[encoding](BODY.encode()), {})
    assert [finding.kind for finding in find_secrets(text)] == [
        f"an OpenAI-style API key (sk-...) inside a {encoding}-compressed body"
    ]


@pytest.mark.parametrize("encoding", ["gzip", "br", "zstd"])
def test_a_key_in_a_binary_response_body_is_found(encoding: str) -> None:
    text = _own(ENCODED[encoding](f'{{"note":"{KEY}"}}'.encode()), encoding)
    findings = find_secrets(text)
    assert [finding.field for finding in findings] == ["interactions[0].response.body.binary"]
    assert findings[0].describe() == (
        f"an OpenAI-style API key (sk-...) inside a {encoding}-compressed body, {len(KEY)} "
        "characters, at interaction 0, response, field body.binary (line 14, column 15)"
    )


def test_a_declared_secret_in_a_compressed_body_is_found() -> None:
    text = _stock(gzip.compress(f"key={DECLARED}".encode()), {"Content-Encoding": ["gzip"]})
    assert find_secrets(text) == []  # not key-shaped: only the declaration finds it
    (finding,) = find_secrets(text, [DECLARED])
    assert finding.kind == "a live API key value inside a gzip-compressed body"


def test_a_key_in_a_plain_base64_body_is_found() -> None:
    text = _stock(b"\xff\xfe binary " + KEY.encode(), {})
    assert [finding.kind for finding in find_secrets(text)] == [
        "an OpenAI-style API key (sk-...) inside a base64 body"
    ]


def test_harmless_compressed_bodies_are_not_findings() -> None:
    for encoding in ENCODED:
        header = "deflate" if encoding == "raw deflate" else encoding
        text = _stock(ENCODED[encoding](b'{"model":"gpt"}'), {"Content-Encoding": [header]})
        assert find_secrets(text) == [], encoding


def test_a_body_that_decodes_past_the_limit_is_not_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HARNESS_CONFORMANCE_MAX_BODY_BYTES", "1000")
    bomb = gzip.compress(b"0" * 5_000_000 + KEY.encode())
    assert find_secrets(_stock(bomb, {"Content-Encoding": ["gzip"]})) == []


def test_a_damaged_body_is_scanned_as_it_is() -> None:
    text = _stock(b"\x1f\x8b not really gzip " + KEY.encode(), {"Content-Encoding": ["gzip"]})
    assert "sk-proj" not in text
    assert find_secrets(text) == []  # nothing decodes, and base64 hides nothing readable


def test_recording_decodes_a_compressed_request_body_before_scrubbing() -> None:
    body = gzip.compress(f'{{"key":"{DECLARED}","model":"gpt"}}'.encode())
    headers = {"Content-Encoding": "gzip", "Content-Length": str(len(body))}
    scrubbed = Scrubber([DECLARED]).scrub_request(Request("POST", URL, body, headers))
    assert scrubbed.body == b'{"key":"<redacted>","model":"gpt"}'
    assert {name.lower() for name in scrubbed.headers} == set()


def test_a_request_body_that_does_not_decode_is_kept() -> None:
    request = Request("POST", URL, b"\x1f\x8bnot gzip", {"Content-Encoding": "gzip"})
    scrubbed = Scrubber().scrub_request(request)
    assert scrubbed.body == b"\x1f\x8bnot gzip"
    assert scrubbed.headers == {"Content-Encoding": "gzip"}


def test_the_matcher_compares_a_compressed_request_decoded() -> None:
    recorded = Request("POST", URL, b'{"model":"gpt"}', {})
    live = Request("POST", URL, gzip.compress(b'{"model": "gpt"}'), {"Content-Encoding": "gzip"})
    json_body = json_body_matcher()
    json_body(live, recorded)  # raises when they differ
    other = Request("POST", URL, gzip.compress(b'{"model":"o"}'), {"Content-Encoding": "gzip"})
    with pytest.raises(AssertionError):
        json_body(other, recorded)


class _Echo(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        reply = b'{"choices":[]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"
    server.shutdown()
    server.server_close()


def _post(url: str, payload: dict[str, str]) -> httpx2.Response:
    body = gzip.compress(json.dumps(payload).encode())
    headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
    return httpx2.post(url, content=body, headers=headers)


def test_a_compressed_request_records_scrubbed_and_replays(tmp_path: Path, echo: str) -> None:
    path = tmp_path / "gzip.yaml"
    payload = {"model": "gpt", "key": DECLARED}
    with use_cassette(make_vcr(secrets=[DECLARED]), path, mode="once"):
        assert _post(echo, payload).status_code == 200
    text = path.read_text(encoding="utf-8")
    assert DECLARED not in text
    assert "binary" not in text
    assert '"key": "<redacted>"' in text or '"key":"<redacted>"' in text
    with use_cassette(make_vcr(secrets=[DECLARED]), path, mode="none"):
        assert _post(echo, {"model": "gpt", "key": "<redacted>"}).json() == {"choices": []}


def test_replay_refuses_a_cassette_with_a_key_in_a_compressed_body(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "gzip.yaml"
    cassette.write_text(
        _stock(gzip.compress(BODY.encode()), {"Content-Encoding": ["gzip"]}), encoding="utf-8"
    )
    assert main(["replay", str(cassette)]) == 1
    out = capsys.readouterr().out
    assert "CASSETTE_SECRET" in out
    assert "gzip-compressed body" in out
    assert KEY not in out

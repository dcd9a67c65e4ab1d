"""Bodies from outside are decoded within bounds: a decompression bomb passes the
body size limit and is CASSETTE_CORRUPT, as are damaged brotli, an invalid request
URL and JSON nested too deeply to read; each names the file and the interaction."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import zstandard

from harness_conformance.cassettes import (
    CassettePersister,
    decoded_response,
    load_document,
    load_foreign_cassette,
    serialize,
    serializer,
)
from harness_conformance.cassettes._decompress import (
    MAX_BODY_BYTES,
    MAX_BODY_BYTES_ENV,
    BodyTooLarge,
    decompress,
    max_body_bytes,
)
from harness_conformance.errors import CassetteError

GZIP_JSON = {"Content-Encoding": ["gzip"], "Content-Type": ["application/json"]}
PAYLOAD = json.dumps({"choices": [{"index": 0, "message": {"content": "hi " * 500}}]}).encode()


def _persisted(path: Path) -> object:
    return CassettePersister().load_cassette(path, serializer)


@pytest.fixture
def bomb(hostile: SimpleNamespace, tmp_path: Path) -> Path:
    path = tmp_path / "bomb.yaml"
    path.write_text(hostile.stock_cassette(hostile.gzip_bomb(), GZIP_JSON), encoding="utf-8")
    assert path.stat().st_size < 4 * 1024 * 1024  # 2 GiB once decoded
    return path


@pytest.mark.slow
@pytest.mark.parametrize(
    ("load", "expected"),
    [
        ("load_foreign_cassette({path!r})", "CASSETTE_CORRUPT {path}: line 9: interaction 0: "),
        (
            "CassettePersister().load_cassette({path!r}, serializer)",
            "CASSETTE_CORRUPT cassette {path} is damaged at line 9, column 7 "
            "(interaction 0, response.body): ",
        ),
    ],
    ids=["replay", "plugin"],
)
def test_a_gzip_bomb_stops_at_the_decoded_size_limit(
    hostile: SimpleNamespace, bomb: Path, load: str, expected: str
) -> None:
    out = hostile.run_bounded(f"""
        from harness_conformance.cassettes import (
            CassettePersister, load_foreign_cassette, serializer,
        )
        from harness_conformance.errors import CassetteError
        try:
            {load.format(path=str(bomb))}
        except CassetteError as exc:
            print(exc.code, exc)
    """)
    assert out.startswith(expected.format(path=bomb)), out
    assert "body size limit of 67,108,864 bytes" in out
    assert MAX_BODY_BYTES_ENV in out


def test_the_limit_is_raised_by_the_environment(
    hostile: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "two-mib.yaml"
    path.write_text(
        hostile.stock_cassette(hostile.gzip_bomb(2 * 1024 * 1024), GZIP_JSON), encoding="utf-8"
    )
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, str(1024 * 1024))
    for load in (load_foreign_cassette, _persisted):
        with pytest.raises(CassetteError, match="body size limit of 1,048,576 bytes") as caught:
            load(path)
        assert caught.value.code == "CASSETTE_CORRUPT"
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, str(2 * 1024 * 1024))
    [interaction] = load_foreign_cassette(path)
    assert interaction.body == "\0" * (2 * 1024 * 1024)  # zeros are UTF-8 text
    assert _persisted(path)
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, "-3")
    with pytest.raises(ValueError, match=f"{MAX_BODY_BYTES_ENV} must be a positive integer"):
        max_body_bytes()
    monkeypatch.delenv(MAX_BODY_BYTES_ENV)
    assert max_body_bytes() == MAX_BODY_BYTES == 64 * 1024 * 1024


def test_recording_a_bomb_is_refused_not_kept_encoded(
    hostile: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = hostile.gzip_bomb(3 * 1024 * 1024)
    response: dict[str, Any] = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Encoding": ["gzip"]},
        "body": {"string": body},
    }
    request: dict[str, Any] = {
        "method": "POST",
        "uri": "https://api.example.test/v1",
        "body": None,
        "headers": {},
    }
    cassette = {"interactions": [{"request": request, "response": response}]}
    assert decoded_response(response)["body"]["string"] == bytes(3 * 1024 * 1024)
    monkeypatch.setenv(MAX_BODY_BYTES_ENV, str(2 * 1024 * 1024))
    # Left encoded, the body would reach the client, which decodes it without a limit.
    with pytest.raises(BodyTooLarge, match="body size limit of 2,097,152"):
        decoded_response(response)
    with pytest.raises(BodyTooLarge):
        serialize(cassette)


def test_decompress_reads_every_encoding_within_the_limit() -> None:
    brotli = pytest.importorskip("brotli")
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    raw_deflate = raw.compress(PAYLOAD) + raw.flush()
    assert decompress(gzip.compress(PAYLOAD) + gzip.compress(b"!") + b"\0\0", "gzip") == (
        PAYLOAD + b"!"
    )
    assert decompress(gzip.compress(PAYLOAD), "x-gzip") == PAYLOAD
    assert decompress(b"", "gzip") == b""
    assert decompress(zlib.compress(PAYLOAD), "deflate") == PAYLOAD
    assert decompress(raw_deflate, "deflate") == PAYLOAD
    assert decompress(brotli.compress(PAYLOAD), "br") == PAYLOAD
    packer = zstandard.ZstdCompressor()
    frames = packer.compress(PAYLOAD) + packer.compress(b"!")
    assert decompress(frames, "zstd") == PAYLOAD + b"!"
    assert decompress(gzip.compress(PAYLOAD), "gzip", limit=len(PAYLOAD)) == PAYLOAD
    for encoding, data in [
        ("gzip", gzip.compress(PAYLOAD)),
        ("deflate", zlib.compress(PAYLOAD)),
        ("br", brotli.compress(PAYLOAD)),
        ("zstd", zstandard.ZstdCompressor().compress(PAYLOAD)),
    ]:
        with pytest.raises(BodyTooLarge, match=f"the {encoding} body decodes to more than"):
            decompress(data, encoding, limit=len(PAYLOAD) - 1)
    zstd_bomb = zstandard.ZstdCompressor().compress(bytes(64 * 1024 * 1024))
    assert len(zstd_bomb) < 5_000
    with pytest.raises(BodyTooLarge, match="the zstd body decodes to more than"):
        decompress(zstd_bomb, "zstd", limit=1024 * 1024)
    brotli_bomb = brotli.compress(bytes(16 * 1024 * 1024), quality=1)
    assert len(brotli_bomb) < 20_000
    with pytest.raises(BodyTooLarge):
        decompress(brotli_bomb, "br", limit=1024 * 1024)
    for encoding, damaged in [
        ("gzip", gzip.compress(PAYLOAD)[:-12]),
        ("gzip", b"not gzip"),
        ("deflate", b"not deflate"),
        ("br", b"garbage that is not brotli"),
        ("br", brotli.compress(PAYLOAD)[:-4]),
        ("zstd", b"x"),
        ("zstd", zstandard.ZstdCompressor().compress(PAYLOAD)[:-3]),
    ]:
        with pytest.raises(ValueError) as caught:
            decompress(damaged, encoding)
        assert not isinstance(caught.value, BodyTooLarge)


def test_garbage_brotli_names_the_file_and_interaction(
    hostile: SimpleNamespace, tmp_path: Path
) -> None:
    pytest.importorskip("brotli")
    path = tmp_path / "garbage.yaml"
    path.write_text(
        hostile.stock_cassette(b"garbage that is not brotli", {"Content-Encoding": ["br"]}),
        encoding="utf-8",
    )
    with pytest.raises(CassetteError) as caught:
        load_foreign_cassette(path)
    assert caught.value.code == "CASSETTE_CORRUPT"
    assert str(caught.value).startswith(f"{path}: line 9: interaction 0: the body says ")
    assert "not a brotli stream" in str(caught.value)


@pytest.mark.parametrize("uri", ["http://[::1", "https://api.example.test:99999/v1", "http://[x]/"])
def test_an_invalid_request_url_is_corrupt(
    hostile: SimpleNamespace, tmp_path: Path, uri: str
) -> None:
    path = tmp_path / "url.yaml"
    path.write_text(hostile.stock_cassette("{}", {}, uri=uri), encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        load_foreign_cassette(path)
    assert caught.value.code == "CASSETTE_CORRUPT"
    assert str(caught.value).startswith(f"{path}: line 6: interaction 0: the request uri ")
    with pytest.raises(CassetteError) as persisted:
        _persisted(path)
    assert f"cassette {path} is damaged at line 6, column 10 (interaction 0, request.uri)" in str(
        persisted.value
    )
    own = load_document.__module__  # our own format checks the same field
    assert own.endswith("_format")


def test_an_invalid_url_in_our_own_format_is_corrupt() -> None:
    text = (
        "harness_conformance: {format: 1}\n"
        "interactions:\n"
        "- request: {method: POST, uri: 'http://[::1', headers: {}, body: null}\n"
        "  response:\n"
        "    status: {code: 200, message: OK}\n"
        "    headers: {}\n"
        "    body: {text: hi}\n"
    )
    with pytest.raises(CassetteError, match=r"interaction 0, request\.uri\): the request uri"):
        load_document(text, path="own.yaml")


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("where", ["response", "request", "event"])
def test_json_nested_too_deeply_is_corrupt(
    hostile: SimpleNamespace, tmp_path: Path, where: str
) -> None:
    path = tmp_path / "deep.yaml"
    body = f"data: {DEEP}\n\n" if where == "event" else DEEP
    headers = {"Content-Type": ["text/event-stream" if where == "event" else "application/json"]}
    text = hostile.stock_cassette("{}" if where == "request" else body, headers)
    if where == "request":
        text = text.replace("body: null", f"body: '{DEEP}'")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        load_foreign_cassette(path)
    assert caught.value.code == "CASSETTE_CORRUPT"
    assert f"{path}: line " in str(caught.value)
    assert "interaction 0: " in str(caught.value)
    assert "nested too deeply" in str(caught.value)


def test_a_json_cassette_nested_too_deeply_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"interactions": ' + DEEP + "}", encoding="utf-8")
    with pytest.raises(CassetteError, match="nested too deeply") as caught:
        load_foreign_cassette(path)
    assert caught.value.code == "CASSETTE_CORRUPT"
    assert str(caught.value).startswith(f"{path}: not valid JSON")

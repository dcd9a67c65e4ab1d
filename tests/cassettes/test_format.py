"""The cassette format: structured bodies that come back byte for byte, the header, the
header allow-list, decoded compression, and damaged files refused with a clear error."""

from __future__ import annotations

import gzip
import importlib
import json
import re
import zlib
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from harness_conformance import __version__
from harness_conformance.cassettes import (
    FORMAT_VERSION,
    decoded_response,
    deserialize,
    dump_json,
    parse_json,
    serialize,
    sse_items,
    sse_text,
)
from harness_conformance.errors import CassetteError
from harness_conformance.strategies import json_values

SSE = "text/event-stream; charset=utf-8"


def cassette(*interactions: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    """What vcrpy hands a serializer."""
    return {
        "version": 1,
        "interactions": [{"request": req, "response": resp} for req, resp in interactions],
    }


def request(
    body: Any = None, headers: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "method": "POST",
        "uri": "https://api.deepseek.com/chat/completions",
        "body": body,
        "headers": headers if headers is not None else {"Content-Type": ["application/json"]},
        **extra,
    }


def response(
    body: Any, content_type: str | None = "application/json", /, **headers: Any
) -> dict[str, Any]:
    all_headers = {"Content-Type": [content_type]} if content_type else {}
    all_headers.update(headers)
    return {
        "status": {"code": 200, "message": "OK"},
        "headers": all_headers,
        "body": {"string": body},
    }


def as_bytes(body: str | bytes | None) -> bytes | None:
    return body.encode("utf-8") if isinstance(body, str) else body


def round_trip(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(loaded cassette dict, stored YAML document)``."""
    text = serialize(data)
    return deserialize(text), yaml.safe_load(text)


def response_body_round_trip(body: str | bytes, content_type: str | None) -> tuple[Any, Any]:
    loaded, stored = round_trip(cassette((request(), response(body, content_type))))
    got = loaded["interactions"][0]["response"]["body"]["string"]
    return as_bytes(got), stored["interactions"][0]["response"]["body"]


# -- byte-faithful bodies ----------------------------------------------------------------

STYLES = ["compact", "default", "indent2", "indent4"]
STYLE_NAMES = [
    base + ascii_ + newline
    for base in STYLES
    for ascii_ in ("", "+ascii")
    for newline in ("", "+newline")
]

sse_lines = st.one_of(
    st.builds(
        lambda v, s: "data: " + dump_json(v, s), json_values(), st.sampled_from(STYLE_NAMES[:4])
    ),
    st.builds(lambda v: "data:" + json.dumps(v), json_values(max_leaves=3)),
    st.just("data: [DONE]"),
    st.just(": keep-alive"),
    st.text(max_size=30).map(lambda t: ":" + t),
    st.sampled_from(["event: message", "id: 7", "retry: 100", "data: {not json", "data: NaN"]),
    st.text(max_size=40),
)
line_ends = st.sampled_from(["\n\n", "\n", "\r\n", "\r\n\r\n", "\r", "\n\n\n", ""])
sse_bodies = st.lists(st.tuples(sse_lines, line_ends), max_size=12).map(
    lambda pairs: "".join(line + end for line, end in pairs)
)


@given(sse_bodies)
@example("")
@example("\n\ndata: {}\n\n")
@example('data: {"a":1}\r\n\r\ndata: [DONE]')
@example('data: {"a":1e5}\n\n')
def test_any_sse_text_survives_the_event_list(text: str) -> None:
    items = sse_items(text)
    assert items is not None
    assert sse_text(items[0], json_style=items[1], end=items[2]) == text


@given(st.one_of(sse_bodies.map(lambda t: t.encode("utf-8")), st.binary(max_size=200)))
@example(b"data: \xff\xfe\n\n")
@example('data: {"t":"\u2028\x85\ufeff"}\n\n'.encode())
def test_any_sse_bytes_survive_the_cassette_file(body: bytes) -> None:
    got, _ = response_body_round_trip(body, SSE)
    assert got == body


def test_sse_events_are_stored_one_line_each_as_a_text_block() -> None:
    body = (
        ': keep-alive\n\ndata: {"choices":[{"delta":{"content":"Hi"}}]}\n\n'
        "event: ping\n"
        'data:{"id":1}\n\n'
        "data: {broken\n\n"
        "data: [DONE]\n\n"
    )
    got, stored = response_body_round_trip(body, SSE)
    assert got == body.encode()
    assert stored == {"sse": body}
    assert sse_items(stored["sse"]) == (
        [
            {"comment": " keep-alive"},
            {"data": {"choices": [{"delta": {"content": "Hi"}}]}},
            {"raw": "event: ping", "end": "\n"},
            {"data": {"id": 1}, "prefix": "data:"},
            {"raw": "data: {broken"},
            {"done": True},
        ],
        "compact",
        "\n\n",
    )


@given(json_values(), st.sampled_from(STYLE_NAMES))
def test_json_bodies_in_every_supported_style_are_structured_and_exact(
    value: Any, style: str
) -> None:
    text = dump_json({"payload": value}, style)
    got, stored = response_body_round_trip(text.encode(), "application/json")
    assert got == text.encode()
    assert json.loads(stored["json"]) == {"payload": value}
    assert dump_json(json.loads(stored["json"]), stored["json_style"]) == text


@pytest.mark.slow
@given(json_values())
def test_request_json_bodies_are_structured_and_exact(value: Any) -> None:
    text = json.dumps({"model": "deepseek-chat", "x": value}, separators=(",", ":"))
    loaded, stored = round_trip(cassette((request(text), response("{}"))))
    assert loaded["interactions"][0]["request"]["body"] == text
    assert json.loads(stored["interactions"][0]["request"]["body"]["json"])["x"] == value


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1e5}',
        '{"a":1,"a":2}',
        '{ "a":1}',
        '{"a":NaN}',
        '{"a":0.000015598}',
        '{"a":"\\u00e9"}  ',
        '{"a":"\\ud800"}',
        '{"a":1}\n\n',
        "[1,2",
    ],
)
def test_json_that_no_style_reproduces_is_kept_as_raw_text(text: str) -> None:
    assert parse_json(text) is None
    got, stored = response_body_round_trip(text, "application/json")
    assert got == text.encode()
    assert stored == {"text": text}


@given(st.text())
@example("line one\nline two  \n\ttabbed\n")
@example("\r\n")
@example(" leading space\nand more")
def test_any_text_body_survives(text: str) -> None:
    got, _ = response_body_round_trip(text, "text/plain")
    assert got == text.encode()


@given(st.binary())
def test_any_binary_body_survives(body: bytes) -> None:
    got, _ = response_body_round_trip(body, "application/octet-stream")
    assert got == body


headers = st.dictionaries(
    st.sampled_from(["Content-Type", "content-type", "Retry-After", "X-Request-Id", "Date"]),
    st.lists(st.text(max_size=10), min_size=1, max_size=2),
    max_size=3,
)
bodies = st.one_of(
    st.none(),
    st.text(max_size=50),
    st.builds(json.dumps, json_values(max_leaves=5)),
    st.binary(max_size=20).filter(lambda b: not _is_utf8(b)),
)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _kept(headers: dict[str, list[str]], allowed: set[str]) -> dict[str, list[str]]:
    kept: dict[str, list[str]] = {}
    for name, values in headers.items():
        if name.lower() in allowed:
            kept.setdefault(name.lower(), []).extend(values)
    return kept


@pytest.mark.slow
@given(
    st.lists(
        st.tuples(bodies, headers, bodies, headers, st.integers(100, 599)), min_size=1, max_size=3
    )
)
def test_a_cassette_dict_comes_back_equal_minus_dropped_headers(draws: list[Any]) -> None:
    data = cassette(
        *[
            (
                request(req_body, req_headers),
                {
                    "status": {"code": code, "message": "M"},
                    "headers": resp_headers,
                    "body": {"string": resp_body},
                },
            )
            for req_body, req_headers, resp_body, resp_headers, code in draws
        ]
    )
    loaded, _ = round_trip(data)
    assert loaded["version"] == 1
    assert len(loaded["interactions"]) == len(draws)
    for got, (req_body, req_headers, resp_body, resp_headers, code) in zip(
        loaded["interactions"], draws, strict=True
    ):
        assert got["request"] == {
            "method": "POST",
            "uri": "https://api.deepseek.com/chat/completions",
            "body": req_body,
            "headers": _kept(req_headers, {"content-type"}),
        }
        assert got["response"] == {
            "status": {"code": code, "message": "M"},
            "headers": _kept(resp_headers, {"content-type", "retry-after"}),
            "body": {"string": resp_body},
        }


# -- header, allow-list, compression -----------------------------------------------------


def test_the_header_names_format_library_time_model_and_host() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    body = json.dumps({"model": "deepseek-reasoner", "messages": []})
    first = request(body) | {"uri": "https://user:pw@api.deepseek.com:8443/chat/completions?a=1"}
    _, stored = round_trip(cassette((first, response("{}")), (request("{}"), response("{}"))))
    header = stored["harness_conformance"]
    recorded = datetime.strptime(header.pop("recorded_at"), "%Y-%m-%dT%H:%M:%SZ")
    assert before <= recorded.replace(tzinfo=UTC) <= datetime.now(UTC)
    assert header == {
        "format": FORMAT_VERSION,
        "library": __version__,
        "model": "deepseek-reasoner",
        "host": "api.deepseek.com:8443",
    }
    assert list(stored) == ["harness_conformance", "interactions", "version"]
    assert stored["version"] == 1


def test_an_empty_cassette_has_no_model_or_host() -> None:
    loaded, stored = round_trip(cassette())
    assert stored["harness_conformance"]["model"] is None
    assert stored["harness_conformance"]["host"] is None
    assert loaded["interactions"] == []


def test_vcrpy_metadata_is_kept() -> None:
    data = cassette((request(), response("{}"))) | {"metadata": {"seed": 7}}
    loaded, _ = round_trip(data)
    assert loaded["metadata"] == {"seed": 7}


def test_only_allow_listed_headers_are_written_with_lower_case_names() -> None:
    noisy = {
        "Authorization": ["Bearer abc"],
        "Cookie": ["a=b"],
        "Set-Cookie": ["__cf_bm=x"],
        "OpenAI-Organization": ["org-1"],
        "OpenAI-Project": ["proj_1"],
        "X-Request-Id": ["req_1"],
        "Date": ["Sun, 01 Jan 2026 00:00:00 GMT"],
        "X-RateLimit-Remaining-Requests": ["99"],
        "Content-Length": ["2"],
        "Retry-After": ["3"],
        "X-Should-Retry": ["false"],
    }
    req = request("{}", {"Content-Type": ["application/json"], **noisy})
    _, stored = round_trip(cassette((req, response("{}", **noisy))))
    interaction = stored["interactions"][0]
    assert interaction["request"]["headers"] == {"content-type": ["application/json"]}
    assert interaction["response"]["headers"] == {
        "content-type": ["application/json"],
        "retry-after": ["3"],
        "x-should-retry": ["false"],
    }


def test_gzip_and_deflate_bodies_are_decoded_and_their_headers_dropped() -> None:
    payload = b'{"id":"x","choices":[]}'
    for encoding, data in (
        ("gzip", gzip.compress(payload)),
        ("deflate", zlib.compress(payload)),
    ):
        resp = response(
            data, **{"Content-Encoding": [encoding], "Content-Length": [str(len(data))]}
        )
        loaded, stored = round_trip(cassette((request(), resp)))
        assert json.loads(stored["interactions"][0]["response"]["body"]["json"]) == json.loads(
            payload
        )
        assert stored["interactions"][0]["response"]["headers"] == {
            "content-type": ["application/json"]
        }
        assert loaded["interactions"][0]["response"]["body"]["string"] == payload.decode()


def test_brotli_bodies_are_decoded() -> None:
    brotli = pytest.importorskip("brotli")
    payload = b'data: {"a":1}\n\ndata: [DONE]\n\n'
    resp = response(brotli.compress(payload), SSE, **{"content-encoding": "br"})
    loaded, stored = round_trip(cassette((request(), resp)))
    assert stored["interactions"][0]["response"]["body"]["sse"] == payload.decode()
    assert as_bytes(loaded["interactions"][0]["response"]["body"]["string"]) == payload


def test_without_brotli_a_brotli_body_stays_binary_with_its_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_import = importlib.import_module

    def no_brotli(name: str, package: str | None = None) -> ModuleType:
        if name == "brotli":
            raise ImportError("No module named 'brotli'")
        return real_import(name, package)

    monkeypatch.setattr(importlib, "import_module", no_brotli)
    compressed = b"\x8b\x02\x80hello\x03"
    resp = response(compressed, "text/plain", **{"Content-Encoding": ["br"]})
    loaded, stored = round_trip(cassette((request(), resp)))
    stored_response = stored["interactions"][0]["response"]
    assert stored_response["headers"] == {
        "content-type": ["text/plain"],
        "content-encoding": ["br"],
    }
    assert "binary" in stored_response["body"]
    assert loaded["interactions"][0]["response"]["body"]["string"] == compressed


def test_a_damaged_gzip_body_is_kept_encoded() -> None:
    resp = response(b"\x1f\x8b\x08garbage\xff", **{"Content-Encoding": ["gzip"]})
    assert decoded_response(resp) == resp
    loaded, stored = round_trip(cassette((request(), resp)))
    assert stored["interactions"][0]["response"]["headers"]["content-encoding"] == ["gzip"]
    assert loaded["interactions"][0]["response"]["body"]["string"] == b"\x1f\x8b\x08garbage\xff"


# -- stock cassettes ---------------------------------------------------------------------

STOCK = """\
interactions:
- request:
    body: '{"model":"gpt-4o"}'
    headers:
      Authorization: [Bearer test_key]
    method: POST
    uri: https://api.openai.com/v1/chat/completions
  response:
    body: {string: '{"id":"1"}'}
    headers: {Content-Type: [application/json]}
    status: {code: 200, message: OK}
- request:
    headers: {}
    method: POST
    parsed_body: {model: gpt-4o, stream: false}
    uri: https://api.openai.com/v1/chat/completions
  response:
    headers: {}
    parsed_body: {error: {code: model_not_found}}
    status: {code: 404, message: Not Found}
version: 1
"""


def test_stock_vcrpy_cassettes_pass_through_and_parsed_body_becomes_a_body() -> None:
    loaded = deserialize(STOCK)
    first, second = loaded["interactions"]
    assert first["request"]["body"] == '{"model":"gpt-4o"}'
    assert first["response"]["body"] == {"string": '{"id":"1"}'}
    assert json.loads(second["request"]["body"]) == {"model": "gpt-4o", "stream": False}
    assert json.loads(second["response"]["body"]["string"]) == {
        "error": {"code": "model_not_found"}
    }
    assert "parsed_body" not in second["request"]


# -- damaged files -----------------------------------------------------------------------

GOOD = serialize(cassette((request('{"model":"m"}'), response('{"id":"1"}'))))


def corrupt(text: str) -> CassetteError:
    with pytest.raises(CassetteError) as caught:
        deserialize(text)
    assert caught.value.code == "CASSETTE_CORRUPT"
    return caught.value


def test_the_good_cassette_loads() -> None:
    assert deserialize(GOOD)["interactions"][0]["response"]["body"]["string"] == '{"id":"1"}'


def test_bad_yaml_names_line_and_column() -> None:
    error = corrupt(GOOD.replace("  format: 2\n", "  format: [2\n"))
    assert re.search(r"damaged at line \d+, column \d+: it is not valid YAML", error.message)
    assert "delete it and record it again" in error.message


def test_an_unknown_format_version_says_to_upgrade() -> None:
    error = corrupt(GOOD.replace("  format: 2\n", "  format: 3\n"))
    assert "format 3" in error.message
    assert "line 2, column 11" in error.message
    assert "Upgrade harness-conformance" in error.message


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("  format: 2\n", "  format: one\n"), "format must be a positive integer"),
        (
            ("- request:\n", "- requests:\n"),
            r"\(interaction 0, request\): request must be a mapping",
        ),
        (
            ("      code: 200\n", "      code: '200'\n"),
            r"\(interaction 0, response\.status\.code\): status\.code must be an integer",
        ),
        (
            ("    method: POST\n", "    method: [POST]\n"),
            r"\(interaction 0, request\.method\): method must be a string",
        ),
        (
            ("      json_style: compact\n", "      json_style: tight\n"),
            "unknown json_style 'tight'",
        ),
        (
            ("      json: |-\n", "      text: x\n      json: |-\n"),
            "exactly one of json, sse, text, binary",
        ),
        (("interactions:\n", "interactions: 3\nold:\n"), "interactions must be a list, not int"),
        (
            ("    headers:\n      content-type:\n      - application/json\n", "    headers: [x]\n"),
            "headers must be a mapping",
        ),
    ],
)
def test_wrong_shapes_name_the_interaction_and_field(edit: tuple[str, str], expected: str) -> None:
    old, new = edit
    assert old in GOOD
    error = corrupt(GOOD.replace(old, new, 1))
    assert re.search(expected, error.message), error.message
    assert "cassette <text> is damaged at line" in error.message


def test_a_bad_sse_event_names_its_index() -> None:
    text = (
        "harness_conformance: {format: 1}\n"
        "interactions:\n- request: {method: POST, uri: 'https://h/', headers: {}, body: null}\n"
        "  response:\n    status: {code: 200, message: OK}\n    headers: {}\n"
        "    body:\n      sse:\n      - data: {a: 1}\n      - done: true\n"
    )
    assert deserialize(text)["interactions"][0]["response"]["body"]["string"] == (
        'data: {"a":1}\n\ndata: [DONE]\n\n'
    )
    error = corrupt(text.replace("      - done: true\n", "      - done: maybe\n"))
    assert "sse" in error.message
    assert "[1]: done must be true" in error.message


def test_bad_base64_is_refused() -> None:
    text = serialize(cassette((request(), response(b"\xff\xfe", "application/octet-stream"))))
    error = corrupt(text.replace("binary: //4=", "binary: '!!'"))
    assert "binary is not base64" in error.message


def test_a_document_that_is_not_a_mapping_is_refused() -> None:
    assert "the document must be a mapping, not list" in corrupt("- 1\n- 2\n").message

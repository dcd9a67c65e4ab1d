"""Cassette format 2: a JSON body is stored as its JSON indented by two spaces, comes
back byte for byte in the style it was sent in, and the scanner still names the field
of a key inside it."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.cassettes import deserialize, find_secrets, load_document, serialize
from harness_conformance.cassettes._json_path import json_path_at
from harness_conformance.errors import CassetteError
from harness_conformance.strategies import json_values


def cassette_of(request_body: str, response_body: str = '{"id":"1"}') -> dict[str, Any]:
    request = {
        "method": "POST",
        "uri": "https://api.deepseek.com/chat/completions",
        "body": request_body,
        "headers": {"Content-Type": ["application/json"]},
    }
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Type": ["application/json"]},
        "body": {"string": response_body},
    }
    return {"version": 1, "interactions": [{"request": request, "response": response}]}


def test_a_json_body_is_indented_json_in_a_literal_block() -> None:
    body = json.dumps(
        {"model": "deepseek-chat", "messages": [{"role": "user", "content": "Grüß dich ☃"}]},
        separators=(",", ":"),
        ensure_ascii=False,
    )
    text = serialize(cassette_of(body))
    assert (
        "    body:\n"
        "      json: |-\n"
        "        {\n"
        '          "model": "deepseek-chat",\n'
        '          "messages": [\n'
        "            {\n"
        '              "role": "user",\n'
        '              "content": "Grüß dich ☃"\n'
        "            }\n"
        "          ]\n"
        "        }\n"
        "      json_style: compact\n"
    ) in text
    assert yaml.safe_load(text)["harness_conformance"]["model"] == "deepseek-chat"
    assert deserialize(text)["interactions"][0]["request"]["body"] == body


def test_characters_a_block_cannot_hold_are_escaped_and_still_come_back() -> None:
    body = json.dumps({"a": "line\u2028separator\x85next"}, ensure_ascii=False)
    text = serialize(cassette_of(body))
    assert "\\u2028" in text
    assert "\\u0085" in text
    assert deserialize(text)["interactions"][0]["request"]["body"] == body


@given(json_values(), st.sampled_from(["compact", "default", "indent2", "compact+ascii"]))
def test_any_json_body_comes_back_in_its_style(value: Any, style: str) -> None:
    table: dict[str, dict[str, Any]] = {
        "compact": {"separators": (",", ":"), "ensure_ascii": False},
        "default": {"ensure_ascii": False},
        "indent2": {"indent": 2, "ensure_ascii": False},
        "compact+ascii": {"separators": (",", ":")},
    }
    options = table[style]
    body = json.dumps({"v": value}, **options)
    loaded = deserialize(serialize(cassette_of(body, body)))["interactions"][0]
    assert loaded["request"]["body"] == body
    assert loaded["response"]["body"]["string"] == body


GOOD = serialize(cassette_of('{"model":"m"}'))


def corrupt(text: str) -> str:
    with pytest.raises(CassetteError) as caught:
        load_document(text, path="bad.yaml")
    assert caught.value.code == "CASSETTE_CORRUPT"
    return caught.value.message


def test_a_json_block_that_is_not_json_is_refused_with_its_line() -> None:
    text = GOOD.replace('          "model": "m"\n', '          "model": m\n', 1)
    message = corrupt(text)
    assert "json is not JSON text (Expecting value" in message
    assert "(interaction 0, request.body.json)" in message
    assert "bad.yaml is damaged at line 15, column 13" in message


def test_a_json_value_written_as_yaml_is_refused_in_format_2() -> None:
    text = GOOD.replace(
        '      json: |-\n        {\n          "model": "m"\n        }\n',
        "      json:\n        model: m\n",
    )
    assert "json must be the JSON text of the body, not dict" in corrupt(text)
    assert deserialize(text.replace("  format: 2\n", "  format: 1\n"))["interactions"][0][
        "request"
    ]["body"] == ('{"model":"m"}')


def test_nan_in_a_json_block_is_refused() -> None:
    text = GOOD.replace('          "model": "m"\n', '          "model": NaN\n', 1)
    assert "NaN is not JSON" in corrupt(text)


def test_the_scanner_names_the_field_inside_a_json_block() -> None:
    key = "sk-" + "json0123456789abcdefABCDEF"
    body = json.dumps(
        {"model": "m", "messages": [{"role": "system", "content": "be brief"}, {"content": key}]},
        separators=(",", ":"),
    )
    text = serialize(cassette_of(body))
    [finding] = find_secrets(text)
    assert finding.field == "interactions[0].request.body.json.messages[1].content"
    line = text.splitlines()[finding.line - 1]
    assert line[finding.column - 1 :].startswith(key)


def test_a_long_hex_key_is_found_by_the_name_before_it_in_a_json_block() -> None:
    token = "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c"
    text = serialize(cassette_of(json.dumps({"api_key": token, "id": token[::-1]})))
    [finding] = find_secrets(text)
    assert finding.kind == "a long hex key"
    assert finding.field == "interactions[0].request.body.json.api_key"


@pytest.mark.parametrize(
    ("text", "needle", "path"),
    [
        ('{"a": {"b": [1, "x", {"c": "here"}]}}', "here", ".a.b[2].c"),
        ('{"a": {"b": [1, "x", {"c": "here"}]}}', '"c"', ".a.b[2].c"),
        ('[{"k": 1}, {"k": "here"}]', "here", "[1].k"),
        ('{"odd key": "here"}', "here", "['odd key']"),
        ('{"esc\\"aped": "here"}', "here", "['esc\"aped']"),
        ('{"a": [[], [null, "here"]]}', "here", ".a[1][1]"),
        ('{"a": 1, "b": "here"', "here", ".b"),
    ],
)
def test_json_path_at_names_the_key_or_item(text: str, needle: str, path: str) -> None:
    def name(key: str) -> str:
        return f".{key}" if key.isidentifier() else f"[{key!r}]"

    assert json_path_at(text, text.index(needle), name) == path
    assert json_path_at(text, text.index("{") if "{" in text else 0, name) == ""


def test_a_json_block_nested_too_deeply_to_read_is_refused() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    text = GOOD.replace('        {\n          "model": "m"\n        }\n', f"        {deep}\n", 1)
    assert "json is not JSON text (it nests too deeply)" in corrupt(text)

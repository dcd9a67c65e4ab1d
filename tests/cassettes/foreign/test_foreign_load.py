"""`load_foreign_cassette`: every format quirk of the third-party corpus loads, and a
broken file fails with CASSETTE_CORRUPT naming the file, the line and the interaction."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from vcr.serialize import deserialize as vcr_deserialize  # type: ignore[import-untyped]
from vcr.serializers import jsonserializer, yamlserializer  # type: ignore[import-untyped]

from harness_conformance.cassettes.foreign._load import load_foreign_cassette, parse_sse
from harness_conformance.errors import CassetteError

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "cassettes"

COMPLETION = {
    "id": "c",
    "object": "chat.completion",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
}
STREAM = (
    'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n'
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    "data: [DONE]\n\n"
)


def _interaction(response_body: Any, headers: dict[str, list[str]]) -> dict[str, Any]:
    return {
        "request": {
            "method": "post",
            "uri": "https://api.example.test/v1/chat/completions",
            "body": json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
            "headers": {},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": headers,
            "body": {"string": response_body},
        },
    }


def _write_yaml(tmp_path: Path, document: Any, name: str = "cassette.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


# -- quirks that load ----------------------------------------------------------------


def test_pydantic_ai_parsed_body_is_read_as_the_json_it_stands_for(tmp_path: Path) -> None:
    text = (
        "interactions:\n"
        "- request:\n"
        "    headers:\n"
        "      content-type:\n"
        "      - application/json\n"
        "    method: POST\n"
        "    parsed_body:\n"
        "      messages:\n"
        "      - content: hi\n"
        "        role: user\n"
        "      model: m\n"
        "    uri: https://api.example.test/v1/chat/completions\n"
        "  response:\n"
        "    headers:\n"
        "      content-type:\n"
        "      - application/json\n"
        "    parsed_body:\n"
        "      choices: []\n"
        "    status:\n"
        "      code: 200\n"
        "      message: OK\n"
        "- request:\n"
        "    method: POST\n"
        "    parsed_body:\n"
        "      stream: true\n"
        "      messages: []\n"
        "    uri: https://api.example.test/v1/chat/completions\n"
        "  response:\n"
        "    body:\n"
        "      string: |-\n"
        '        data: {"choices": []}\n'
        "\n"
        "        data: [DONE]\n"
        "    headers:\n"
        "      content-type:\n"
        "      - text/event-stream\n"
        "    status:\n"
        "      code: 200\n"
        "      message: OK\n"
    )
    path = tmp_path / "parsed.yaml"
    path.write_text(text, encoding="utf-8")
    first, second = load_foreign_cassette(path)
    assert first.request_body == {"messages": [{"content": "hi", "role": "user"}], "model": "m"}
    assert (first.body_kind, first.body) == ("json", {"choices": []})
    assert second.streamed is True
    assert (second.body_kind, second.body, second.stream_done) == ("sse", ({"choices": []},), True)


def test_the_corpus_parsed_body_files_load() -> None:
    interactions = load_foreign_cassette(CORPUS / "pydantic-ai" / "test_crusoe_tool_calling.yaml")
    assert [i.body_kind for i in interactions] == ["json", "json"]
    assert interactions[1].messages[-1]["role"] == "tool"


def test_gzip_binary_bodies_are_decompressed(tmp_path: Path) -> None:
    packed = gzip.compress(STREAM.encode())
    headers = {"Content-Type": ["text/event-stream"], "Content-Encoding": ["gzip"]}
    path = _write_yaml(tmp_path, {"interactions": [_interaction(packed, headers)], "version": 1})
    assert "!!binary" in path.read_text(encoding="utf-8")
    (interaction,) = load_foreign_cassette(path)
    assert interaction.body_kind == "sse"
    assert interaction.body[0]["choices"][0]["delta"] == {"content": "hi"}
    assert interaction.stream_done is True


def test_deflate_bodies_are_decompressed(tmp_path: Path) -> None:
    headers = {"content-type": ["application/json"], "content-encoding": ["deflate"]}
    packed = zlib.compress(json.dumps(COMPLETION).encode())
    path = _write_yaml(tmp_path, {"interactions": [_interaction(packed, headers)]})
    (interaction,) = load_foreign_cassette(path)
    assert interaction.body == COMPLETION


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("magentic", "test_openai_chat_model_gemini_complete[Say hello!-output_types0-str].yaml"),
        ("openllmetry", "test_langgraph_invoke.yaml"),
    ],
)
def test_the_corpus_gzip_files_load(source: str, name: str) -> None:
    path = CORPUS / source / name
    assert "!!binary" in path.read_text(encoding="utf-8")
    (interaction,) = load_foreign_cassette(path)
    assert interaction.body_kind in ("sse", "json")
    assert interaction.body


def test_doubled_blank_lines_read_as_vcrpy_hands_them_to_the_client() -> None:
    path = CORPUS / "llm" / "test_tools_streaming_variant_a.yaml"
    text = path.read_text(encoding="utf-8")
    assert "}\n\n\n        data: " in text
    _, responses = vcr_deserialize(text, yamlserializer)
    for interaction, response in zip(load_foreign_cassette(path), responses, strict=True):
        sent = response["body"]["string"].decode("utf-8")
        assert "\n\n\n" not in sent
        lines = [line for line in sent.split("\n") if line.startswith("data: ")]
        assert lines[-1] == "data: [DONE]"
        assert list(interaction.body) == [json.loads(line[6:]) for line in lines[:-1]]
        assert interaction.stream_done is True


def test_pretty_printed_json_bodies_are_read_as_json() -> None:
    path = CORPUS / "opentelemetry-python-contrib" / "test_chat_completion_with_content.yaml"
    stored = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"][0]["request"]
    assert stored["body"].startswith('{\n  "messages": [')
    (interaction,) = load_foreign_cassette(path)
    assert interaction.messages[0]["role"] == "user"
    assert interaction.body_kind == "json"
    assert interaction.body["object"] == "chat.completion"


def test_a_cassette_without_a_version_key_loads(tmp_path: Path) -> None:
    corpus_file = CORPUS / "pydantic-ai" / "test_tool_regular_error.yaml"
    assert "version" not in yaml.safe_load(corpus_file.read_text(encoding="utf-8"))
    (interaction,) = load_foreign_cassette(corpus_file)
    assert interaction.status == 404
    path = _write_yaml(tmp_path, {"interactions": [_interaction("{}", {})]})
    assert len(load_foreign_cassette(path)) == 1


def test_json_cassettes_load(tmp_path: Path) -> None:
    document = {"interactions": [_interaction(json.dumps(COMPLETION), {})], "version": 1}
    path = tmp_path / "cassette.json"
    path.write_text(jsonserializer.serialize(document), encoding="utf-8")
    (interaction,) = load_foreign_cassette(path)
    assert interaction.method == "POST"
    assert interaction.body == COMPLETION


def test_header_names_are_lowercased_and_repeats_joined(tmp_path: Path) -> None:
    headers: Any = {"Content-Type": ["text/plain"], "Set-Cookie": "a=1", "set-cookie": ["b=2"]}
    path = _write_yaml(tmp_path, {"interactions": [_interaction("plain words", headers)]})
    (interaction,) = load_foreign_cassette(path)
    assert interaction.response_headers == {"content-type": "text/plain", "set-cookie": "a=1, b=2"}
    assert (interaction.body_kind, interaction.body) == ("text", "plain words")


def test_undecodable_bytes_stay_bytes(tmp_path: Path) -> None:
    path = _write_yaml(tmp_path, {"interactions": [_interaction(b"\xff\xfe", {})]})
    (interaction,) = load_foreign_cassette(path)
    assert (interaction.body_kind, interaction.body) == ("bytes", b"\xff\xfe")


def test_sse_parsing_follows_the_sdk() -> None:
    text = ': keep-alive\n\ndata: {"a":\ndata: 1}\n\ndata:not json\n\ndata: [DONE]\n\ndata: {}\n\n'
    assert parse_sse(text) == (({"a": 1}, "not json"), True)
    assert parse_sse("data: {}\n\ndata: {}") == (({}, {}), False)


def test_every_corpus_file_loads() -> None:
    files = sorted(CORPUS.glob("*/*.yaml"))
    assert len(files) == 61
    for path in files:
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        assert len(load_foreign_cassette(path)) == len(document["interactions"])


# -- broken files --------------------------------------------------------------------


def _corrupt(path: Path) -> str:
    with pytest.raises(CassetteError) as caught:
        load_foreign_cassette(path)
    assert caught.value.code == "CASSETTE_CORRUPT"
    assert caught.value.path == str(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    return message


def test_bad_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("interactions:\n- request: {method: POST, uri: [1,\n", encoding="utf-8")
    assert ": line 3: the YAML does not load" in _corrupt(path)


def test_bad_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"interactions": [\n  {"request": \n]}', encoding="utf-8")
    assert ": line 3: not valid JSON" in _corrupt(path)


def test_missing_interactions(tmp_path: Path) -> None:
    path = _write_yaml(tmp_path, {"version": 1})
    assert "line 1: the 'interactions' key is missing" in _corrupt(path)
    path = _write_yaml(tmp_path, {"version": 1, "interactions": "none"})
    assert "'interactions' is a str, not a list" in _corrupt(path)
    path = _write_yaml(tmp_path, ["not", "a", "mapping"])
    assert "the top level is not a mapping" in _corrupt(path)


def test_bad_base64_names_the_line_and_the_interaction(tmp_path: Path) -> None:
    good = _interaction("{}", {})
    path = _write_yaml(tmp_path, {"interactions": [good, _interaction(b"\x00\x01", {})]})
    text = path.read_text(encoding="utf-8")
    broken = text.replace("!!binary |\n        AAE=", "!!binary |\n        A@@E=")
    assert broken != text
    path.write_text(broken, encoding="utf-8")
    line = broken.splitlines().index("      string: !!binary |") + 1
    message = _corrupt(path)
    assert f": line {line}: interaction 1: the YAML does not load" in message
    assert "base64" in message


def test_a_gzip_header_on_bytes_that_are_not_gzip(tmp_path: Path) -> None:
    headers = {"Content-Encoding": ["gzip"]}
    path = _write_yaml(tmp_path, {"interactions": [_interaction(b"plain", headers)]})
    line = path.read_text(encoding="utf-8").splitlines().index("      string: !!binary |") + 1
    message = _corrupt(path)
    assert f": line {line}: interaction 0: the body says content-encoding gzip" in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda i: i.pop("response"), "interaction 0: 'response' is missing"),
        (
            lambda i: i["request"].pop("uri"),
            "interaction 0: the request needs a 'method' and a 'uri'",
        ),
        (
            lambda i: i["response"]["status"].update(code="200"),
            "status code is '200', not an integer",
        ),
        (lambda i: i["response"].update(body={"text": ""}), "the response body has no 'string'"),
        (lambda i: i.update(request=[1]), "interaction 0: 'request' is a list, not a mapping"),
    ],
)
def test_malformed_interactions(tmp_path: Path, change: Any, expected: str) -> None:
    interaction = _interaction("{}", {})
    change(interaction)
    path = _write_yaml(tmp_path, {"interactions": [interaction]})
    message = _corrupt(path)
    assert expected in message
    assert ": line " in message


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"interactions:\n- \xe9\n")
    assert ": line 2: the file is not UTF-8 text" in _corrupt(path)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CassetteError) as caught:
        load_foreign_cassette(tmp_path / "absent.yaml")
    assert caught.value.code == "CASSETTE_MISSING"
    assert "absent.yaml" in str(caught.value)

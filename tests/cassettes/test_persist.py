"""Cassette files: recorded for real through vcrpy and the openai SDK, scrubbed on disk,
replayed identically, written atomically, and refused with clear errors when missing,
damaged or holding a secret."""

from __future__ import annotations

import http.client
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
import vcr  # type: ignore[import-untyped]
import yaml
from openai import APIStatusError, AsyncOpenAI
from openai.types.chat import ChatCompletionMessageParam
from vcr.persisters.filesystem import CassetteNotFoundError  # type: ignore[import-untyped]
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import (
    REDACTED,
    SECRET_ENV_VARS,
    CassettePersister,
    configure_vcr,
    make_vcr,
    serializer,
    sse_items,
    write_atomically,
)
from harness_conformance.errors import CassetteError
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    TextResponse,
    ToolCallsResponse,
)

SENTINEL = "sk-sentinel-" + "Zq8Xw2Lk5Vn9Ht3Jc7Md1Fb6"
ORIGINAL_HTTP_CONNECTION = http.client.HTTPConnection
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "cassettes.md"


@pytest.fixture(autouse=True)
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's real keys."""
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def script() -> list[Any]:
    return [
        TextResponse("Bonjour ☃, ça va ?", keep_alive=True, headers={"x-request-id": "req_1"}),
        ToolCallsResponse([("call_1", "get_weather", '{"city": "Paris"}')], interleave=True),
        ErrorResponse(400, headers={"x-request-id": "req_2", "set-cookie": "a=b"}),
    ]


async def session(base_url: str) -> list[Any]:
    """Three calls the way an agent makes them; what the SDK hands back, parsed."""
    client = AsyncOpenAI(base_url=base_url, api_key=SENTINEL, max_retries=0)
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"Say hi. (debug: {SENTINEL})"}
    ]
    seen: list[Any] = []
    for _ in range(2):
        stream = await client.chat.completions.create(
            model="deepseek-chat",
            messages=messages,
            stream=True,
        )
        seen.append([chunk.model_dump() for chunk in [c async for c in stream]])
    try:
        await client.chat.completions.create(model="deepseek-chat", messages=messages)
    except APIStatusError as exc:
        seen.append({"status": exc.status_code, "body": exc.body})
    await client.close()
    return seen


def record_and_replay(
    tmp_path: Path, make: Callable[[str], Any], **use: Any
) -> tuple[Any, Any, Path]:
    """Record the session under ``make("once")``, then replay it with the server gone."""
    path = tmp_path / "cassettes" / "nested" / "session.yaml"
    with LoopbackModelServer(script()) as server:
        base_url = server.base_url
        with make("once").use_cassette(str(path), **use):
            recorded = anyio.run(session, base_url)
        server.assert_consumed()
    with make("none").use_cassette(str(path), **use):
        replayed = anyio.run(session, base_url)
    return recorded, replayed, path


def assert_no_sentinel_under(folder: Path) -> None:
    files = [path for path in folder.rglob("*") if path.is_file()]
    assert files
    for path in files:
        data = path.read_bytes()
        assert SENTINEL.encode() not in data, path
        assert SENTINEL[12:].encode() not in data, path


def test_a_real_session_is_recorded_scrubbed_structured_and_replayed(tmp_path: Path) -> None:
    recorded, replayed, path = record_and_replay(
        tmp_path, lambda mode: make_vcr(secrets=[SENTINEL], record_mode=mode)
    )
    assert path.is_file()
    assert [p.name for p in path.parent.iterdir()] == ["session.yaml"]
    assert_no_sentinel_under(tmp_path)
    assert replayed == recorded
    assert recorded[0][1]["choices"][0]["delta"]["content"] == "Bonj"
    assert any(
        (chunk["choices"][0]["delta"]["tool_calls"] or [{}])[0].get("id") == "call_1"
        for chunk in recorded[1]
        if chunk["choices"]
    )
    assert recorded[2]["status"] == 400

    stored = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert stored["harness_conformance"]["model"] == "deepseek-chat"
    text_call, tool_call, error_call = stored["interactions"]
    request = text_call["request"]
    assert request["headers"] == {"content-type": ["application/json"]}
    messages = json.loads(request["body"]["json"])["messages"]
    assert messages[0]["content"] == f"Say hi. (debug: {REDACTED})"
    events = (sse_items(text_call["response"]["body"]["sse"]) or ([], "", ""))[0]
    assert events[0] == {"comment": " keep-alive"}
    assert events[-1] == {"done": True}
    assert any(
        e.get("data", {}).get("choices", [{}])[0].get("delta", {}).get("content") == "Bonj"
        for e in events
    )
    calls = [
        e["data"]["choices"][0]["delta"].get("tool_calls")
        for e in (sse_items(tool_call["response"]["body"]["sse"]) or ([], "", ""))[0]
        if "data" in e and e["data"]["choices"]
    ]
    assert any(call and call[0].get("id") == "call_1" for call in calls)
    assert error_call["response"]["status"]["code"] == 400
    assert error_call["response"]["headers"] == {"content-type": ["application/json"]}
    error = json.loads(error_call["response"]["body"]["json"])["error"]
    assert error["type"] == "invalid_request_error"


def test_the_key_from_the_environment_is_scrubbed_without_being_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    recorded, replayed, _ = record_and_replay(tmp_path, lambda mode: make_vcr(record_mode=mode))
    assert replayed == recorded
    assert_no_sentinel_under(tmp_path)


def test_scrubbing_holds_when_the_caller_overrides_serializer_and_hooks(tmp_path: Path) -> None:
    def make(mode: str) -> Any:
        return configure_vcr(vcr.VCR(record_mode=mode), secrets=[SENTINEL])

    recorded, replayed, path = record_and_replay(
        tmp_path,
        make,
        serializer="yaml",
        before_record_request=lambda request: request,
        before_record_response=lambda response: response,
    )
    assert replayed == recorded
    assert "harness_conformance" not in path.read_text(encoding="utf-8")
    assert_no_sentinel_under(tmp_path)


def test_configure_vcr_keeps_the_callers_hooks_and_filters(tmp_path: Path) -> None:
    seen: list[str] = []

    def mine(request: Request) -> Request:
        seen.append(request.headers.get("authorization", "none"))
        return request

    configured = configure_vcr(
        vcr.VCR(before_record_request=mine, filter_headers=["x-trace"]), secrets=[SENTINEL]
    )
    assert configured.serializer == "harness_conformance"
    assert configured.decode_compressed_response is True
    assert "x-trace" in configured.filter_headers
    assert "authorization" in configured.filter_headers
    hooks = configured.before_record_request
    assert hooks[0] is mine
    assert len(hooks) == 2


# -- refusing a secret -------------------------------------------------------------------


def test_a_cassette_with_an_unknown_secret_is_not_written(tmp_path: Path) -> None:
    leaked = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv"
    path = tmp_path / "leak.yaml"
    with LoopbackModelServer([TextResponse(f"your key is {leaked}", piece=100)]) as server:
        configured = make_vcr(record_mode="once")
        with pytest.raises(CassetteError) as caught, configured.use_cassette(str(path)):
            anyio.run(session_of_one, server.base_url)
    error = caught.value
    assert error.code == "CASSETTE_SECRET"
    assert error.path == str(path)
    assert "interaction 0, response, field body.sse" in error.message
    assert leaked not in str(error)
    assert list(tmp_path.iterdir()) == []
    # The refused save still took vcrpy's patches off the HTTP libraries, while the
    # error (and the decorator its traceback holds) is alive.
    assert http.client.HTTPConnection is ORIGINAL_HTTP_CONNECTION


async def session_of_one(base_url: str) -> None:
    client = AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0)
    stream = await client.chat.completions.create(
        model="deepseek-chat", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    async for _ in stream:
        pass
    await client.close()


# -- atomic writes -----------------------------------------------------------------------

OLD = "interactions: []\nversion: 1\n"


def a_cassette_dict() -> dict[str, Any]:
    request = Request("POST", "https://h/v1/chat/completions", b'{"model":"m"}', {})
    response = {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": b"{}"}}
    return {"requests": [request], "responses": [response]}


def old_cassette(tmp_path: Path) -> Path:
    path = tmp_path / "keep.yaml"
    path.write_text(OLD, encoding="utf-8")
    return path


def assert_untouched(path: Path) -> None:
    assert path.read_text(encoding="utf-8") == OLD
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_saving_creates_folders_and_writes_a_loadable_file(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "c.yaml"
    persister = CassettePersister()
    persister.save_cassette(path, a_cassette_dict(), serializer)
    requests, responses = persister.load_cassette(path, serializer)
    assert requests[0].body == b'{"model":"m"}'
    assert responses[0]["body"]["string"] == b"{}"
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert [p.name for p in path.parent.iterdir()] == ["c.yaml"]


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_a_serializer_failing_midway_leaves_the_old_cassette(tmp_path: Path) -> None:
    path = old_cassette(tmp_path)

    class Exploding:
        @staticmethod
        def serialize(cassette_dict: Any) -> str:
            raise RuntimeError("serializer broke")

    with pytest.raises(RuntimeError, match="serializer broke"):
        CassettePersister().save_cassette(path, a_cassette_dict(), Exploding)
    assert_untouched(path)


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_a_crash_while_writing_leaves_the_old_cassette_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = old_cassette(tmp_path)
    temporaries: list[str] = []
    real = getattr(os, failing)

    def crash(*args: Any) -> Any:
        temporaries.extend(p.name for p in tmp_path.iterdir() if p.name != path.name)
        raise OSError(f"{failing} failed")

    monkeypatch.setattr(os, failing, crash)
    with pytest.raises(OSError, match=f"{failing} failed"):
        CassettePersister().save_cassette(path, a_cassette_dict(), serializer)
    monkeypatch.setattr(os, failing, real)
    assert len(temporaries) == 1, "the crash came while the temporary file existed"
    assert_untouched(path)


def test_write_atomically_replaces_the_whole_file(tmp_path: Path) -> None:
    path = old_cassette(tmp_path)
    write_atomically(path, "new ☃\n")
    assert path.read_bytes() == "new ☃\n".encode()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


# -- loading -----------------------------------------------------------------------------


def test_a_missing_or_empty_cassette_is_vcrpys_not_found_by_default(tmp_path: Path) -> None:
    with pytest.raises(CassetteNotFoundError):
        CassettePersister().load_cassette(tmp_path / "absent.yaml", serializer)
    (tmp_path / "empty.yaml").write_text("  \n", encoding="utf-8")
    with pytest.raises(CassetteNotFoundError):
        CassettePersister().load_cassette(tmp_path / "empty.yaml", serializer)


def test_a_missing_cassette_is_cassette_missing_when_not_allowed(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(CassetteError) as caught:
        CassettePersister(allow_missing=False).load_cassette(path, serializer)
    assert caught.value.code == "CASSETTE_MISSING"
    assert caught.value.path == str(path)
    assert f"cassette {path} does not exist" in caught.value.message
    assert "Record it first" in caught.value.message


def test_a_damaged_file_names_the_file_and_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    damaged = "harness_conformance: {format: 1}\ninteractions:\n- request: 7\n  response: {}\n"
    path.write_text(damaged, encoding="utf-8")
    with (
        pytest.raises(CassetteError) as caught,
        make_vcr(record_mode="all").use_cassette(str(path)),
    ):
        pass
    error = caught.value
    assert error.code == "CASSETTE_CORRUPT"
    assert error.path == str(path)
    assert error.message.startswith(f"cassette {path} is damaged at line 3, column 12")
    assert "(interaction 0, request): request must be a mapping, not int" in error.message
    assert path.read_text(encoding="utf-8") == damaged


def test_a_file_that_is_not_utf8_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "bytes.yaml"
    path.write_bytes(b"interactions:\n- \xff\xfe\n")
    with pytest.raises(CassetteError, match=r"damaged at line 2: it is not UTF-8") as caught:
        CassettePersister().load_cassette(path, serializer)
    assert caught.value.code == "CASSETTE_CORRUPT"


def test_other_serializers_failures_are_damage_too(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("{not json", encoding="utf-8")
    from vcr.serializers import jsonserializer  # type: ignore[import-untyped]

    with pytest.raises(CassetteError, match=re.escape(f"cassette {path} is damaged")):
        CassettePersister().load_cassette(path, jsonserializer)
    path.write_text(json.dumps({"interactions": [{"request": {"x": 1}, "response": {}}]}))
    with pytest.raises(CassetteError, match=r"damaged \(interaction 0\): TypeError"):
        CassettePersister().load_cassette(path, jsonserializer)


def test_vcrpy_metadata_survives_a_save_and_load(tmp_path: Path) -> None:
    path = tmp_path / "meta.yaml"
    persister = CassettePersister()
    persister.save_cassette(path, a_cassette_dict() | {"metadata": {"seed": 3}}, serializer)
    assert persister.load_cassette(path, serializer)[2] == {"seed": 3}


# -- the guide ---------------------------------------------------------------------------

EXAMPLES = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("number", range(1, len(EXAMPLES) + 1))
def test_guide_example_runs(number: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "example"}
    exec(compile(EXAMPLES[number - 1], f"docs/cassettes.md example {number}", "exec"), namespace)


def test_the_guide_shows_what_its_examples_print(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for number, example in enumerate(EXAMPLES, 1):
        exec(compile(example, f"docs/cassettes.md example {number}", "exec"), {"__name__": "ex"})
    printed = _timeless(capsys.readouterr().out)
    shown = re.findall(r"```(?:yaml|text)\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert len(shown) == 3
    for block in shown:
        assert _timeless(block) in printed


def _timeless(text: str) -> str:
    """The text with the write time and the library version blanked out."""
    text = re.sub(r"recorded_at: '[^']*'", "recorded_at: <time>", text)
    return re.sub(r"library: \S+", "library: <version>", text)

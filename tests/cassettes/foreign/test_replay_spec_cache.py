"""Replays share imported tool schemas: each distinct schema is imported once per process,
the most recently used kept within `SPEC_CACHE_SIZE` schemas and `SPEC_CACHE_TEXT`
characters, with the same results as a fresh import."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml
from _chat_exchange import chat_exchange

from harness_conformance.cassettes.foreign import _replay
from harness_conformance.cassettes.foreign._replay import replay_foreign
from harness_conformance.errors import SchemaError
from harness_conformance.schema import from_json_schema, validate_args

POINT = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}


@pytest.fixture(autouse=True)
def _empty_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_replay, "_KEPT", _replay._SpecCache())


def _cassette(tmp_path: Path, name: str, schema: object, arguments: str) -> Path:
    call = {"id": "c1", "type": "function", "function": {"name": "point", "arguments": arguments}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    response = {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
    request = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "point", "parameters": schema}}],
    }
    interaction = chat_exchange(request, response)
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}), "utf-8")
    return path


def test_a_schema_is_imported_once_for_every_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    imported: list[Any] = []

    def counting(schema: Any) -> Any:
        imported.append(schema)
        return from_json_schema(schema)

    monkeypatch.setattr(_replay, "from_json_schema", counting)
    first = replay_foreign(_cassette(tmp_path, "a.yaml", POINT, '{"x": "one"}'))
    # The same schema with its keys in another order is the same schema.
    reordered = dict(reversed(list(POINT.items())))
    second = replay_foreign(_cassette(tmp_path, "b.yaml", reordered, '{"x": "two"}'))
    assert len(imported) == 1
    assert [c.messages for c in first.invalid_tool_calls] == [('"x" must be an integer',)]
    assert [c.messages for c in second.invalid_tool_calls] == [('"x" must be an integer',)]
    assert first.violations == second.violations == ()


def test_a_shared_spec_validates_as_a_fresh_import_does(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
        "additionalProperties": False,
    }
    values = ['{"tags": ["a", 1, "c"]}', '{"other": true}', '{"tags": []}']
    for number, arguments in enumerate(values * 3):  # enough calls for the compiled validator
        result = replay_foreign(_cassette(tmp_path, f"c{number}.yaml", schema, arguments))
        fresh = validate_args(from_json_schema(schema), json.loads(arguments))
        assert [list(c.messages) for c in result.invalid_tool_calls] == ([fresh] if fresh else [])


def test_schemas_that_differ_inside_are_imported_apart(tmp_path: Path) -> None:
    narrow = {**POINT, "properties": {"x": {"type": "integer", "maximum": 3}}}
    loose = replay_foreign(_cassette(tmp_path, "a.yaml", POINT, '{"x": 7}'))
    strict = replay_foreign(_cassette(tmp_path, "b.yaml", narrow, '{"x": 7}'))
    assert loose.invalid_tool_calls == ()
    assert [c.messages for c in strict.invalid_tool_calls] == [('"x" must be <= 3',)]


def test_a_schema_that_does_not_import_stays_raw_in_every_replay(tmp_path: Path) -> None:
    odd = {"type": "object", "not": {"required": ["x"]}}
    for name in ("a.yaml", "b.yaml"):
        result = replay_foreign(_cassette(tmp_path, name, odd, '{"x": 1}'))
        assert result.raw_tools == ("point",)
        assert result.invalid_tool_calls == ()
    (cached,) = _replay._KEPT.specs.values()
    assert isinstance(cached, SchemaError)


def test_the_cache_keeps_the_most_recently_used_schemas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_replay, "SPEC_CACHE_SIZE", 2)
    schemas = [{"type": "object", "properties": {f"p{n}": {"type": "string"}}} for n in range(3)]
    first, second = (_replay._Schemas().spec(schema) for schema in schemas[:2])
    assert _replay._Schemas().spec(schemas[0]) is first  # used again: now the most recent
    _replay._Schemas().spec(schemas[2])  # pushes out the least recently used, the second
    assert len(_replay._KEPT.specs) == 2
    assert _replay._Schemas().spec(schemas[0]) is first
    assert _replay._Schemas().spec(schemas[1]) is not second


def _schema(width: int, name: str = "p") -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": "string", "description": "x" * width}}}


def _key_length(schema: dict[str, Any]) -> int:
    return len(json.dumps(schema, sort_keys=True))


def test_the_cache_keeps_at_most_its_text_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    schemas = [_schema(100, f"p{n}") for n in range(3)]
    monkeypatch.setattr(_replay, "SPEC_CACHE_TEXT", 2 * _key_length(schemas[0]) + 1)
    first = _replay._Schemas().spec(schemas[0])
    _replay._Schemas().spec(schemas[1])
    assert _replay._Schemas().spec(schemas[0]) is first
    _replay._Schemas().spec(schemas[2])  # over the budget: the least recently used goes
    assert list(_replay._KEPT.specs) == [
        json.dumps(schemas[0], sort_keys=True),
        json.dumps(schemas[2], sort_keys=True),
    ]
    assert _replay._KEPT.chars == sum(map(len, _replay._KEPT.specs))


def test_a_schema_over_the_budget_is_imported_once_per_replay_and_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    huge = _schema(5000)
    monkeypatch.setattr(_replay, "SPEC_CACHE_TEXT", _key_length(huge) - 1)
    imported: list[Any] = []

    def counting(schema: Any) -> Any:
        imported.append(schema)
        return from_json_schema(schema)

    monkeypatch.setattr(_replay, "from_json_schema", counting)
    one = _replay._Schemas()
    assert one.spec(huge) is one.spec(huge)
    assert len(imported) == 1
    assert _replay._KEPT.specs == {}
    assert _replay._KEPT.chars == 0
    _replay._Schemas().spec(huge)  # another replay imports it again
    assert len(imported) == 2


def test_clear_spec_cache_forgets_every_kept_schema() -> None:
    _replay._Schemas().spec(_schema(10, "a"))
    _replay._Schemas().spec(_schema(10, "b"))
    assert len(_replay._KEPT.specs) == 2
    _replay.clear_spec_cache()
    assert _replay._KEPT.specs == {}
    assert _replay._KEPT.chars == 0


def test_putting_a_kept_schema_again_counts_its_text_once() -> None:
    spec = from_json_schema(POINT)
    _replay._KEPT.put("key", spec)
    _replay._KEPT.put("key", spec)
    assert _replay._KEPT.chars == len("key")


def test_replays_in_threads_keep_the_count_of_characters_true(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_replay, "SPEC_CACHE_SIZE", 8)
    spec = from_json_schema(POINT)

    def fill(thread: int) -> None:
        for number in range(300):
            key = f"{thread}-{number % 20}-" + "x" * (number % 7)
            _replay._KEPT.put(key, spec)
            _replay._KEPT.get(f"{thread}-{(number + 3) % 20}-")

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(fill, range(4)))
    assert len(_replay._KEPT.specs) <= 8
    assert _replay._KEPT.chars == sum(map(len, _replay._KEPT.specs))


def test_a_kept_refusal_holds_no_traceback() -> None:
    refused = _replay._Schemas().spec({"type": "object", "properties": 3})
    assert isinstance(refused, SchemaError)
    assert refused.__traceback__ is None

"""Cassettes are parsed once, with libyaml's C parser when PyYAML has it, and the
pure-Python loader takes over with the same results and the same refusals when it
does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from harness_conformance.cassettes import (
    CassettePersister,
    _format,
    find_secrets,
    load_document,
    load_foreign_cassette,
    serialize,
    serializer,
)
from harness_conformance.cassettes.foreign import _load as foreign_load
from harness_conformance.parsing import _yaml
from harness_conformance.parsing._yaml import YamlTextError, compose_yaml, load_yaml

LOOPBACK = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "loopback"
TOOL_CALL = LOOPBACK / "tool_call.yaml"
FORMAT_1 = Path(__file__).resolve().parent / "format1" / "parallel_tool_calls.yaml"

pytestmark = pytest.mark.skipif(
    not hasattr(yaml, "CSafeLoader"), reason="PyYAML was built without libyaml"
)


def counting(base: type[Any]) -> type[Any]:
    """A subclass of the loader ``base`` that counts the documents it is made for."""

    class Counting(base):  # type: ignore[misc]
        made: ClassVar[list[str]] = []

        def __init__(self, stream: str) -> None:
            type(self).made.append(stream)
            super().__init__(stream)

    return Counting


@pytest.fixture
def cassette_loader(monkeypatch: pytest.MonkeyPatch) -> type[Any]:
    """The cassette loader, counting, wherever the loaders look it up."""
    loader = counting(_format.VCR_YAML_LOADER)
    monkeypatch.setattr(_format, "VCR_YAML_LOADER", loader)
    monkeypatch.setattr(foreign_load, "VCR_YAML_LOADER", loader)
    return loader


@pytest.fixture
def plain_loader(monkeypatch: pytest.MonkeyPatch) -> type[Any]:
    """The loader `compose_yaml` and `load_yaml` use by default, counting."""
    loader = counting(_yaml.safe_loader())
    monkeypatch.setattr(_yaml, "safe_loader", lambda: loader)
    return loader


def test_the_loaders_are_the_c_ones() -> None:
    assert _yaml.safe_loader() is yaml.CSafeLoader
    assert issubclass(_format.VCR_YAML_LOADER, yaml.CSafeLoader)
    assert getattr(foreign_load, "VCR_YAML_LOADER") is _format.VCR_YAML_LOADER  # noqa: B009


@pytest.mark.parametrize("path", [TOOL_CALL, FORMAT_1], ids=["format 2", "format 1"])
def test_every_loader_parses_a_cassette_once(
    path: Path, cassette_loader: type[Any], plain_loader: type[Any]
) -> None:
    text = path.read_text(encoding="utf-8")
    load_document(text, path=str(path))
    assert (len(cassette_loader.made), len(plain_loader.made)) == (1, 0)
    load_foreign_cassette(path)
    assert (len(cassette_loader.made), len(plain_loader.made)) == (2, 0)
    CassettePersister().load_cassette(path, serializer)
    assert (len(cassette_loader.made), len(plain_loader.made)) == (3, 0)
    assert cassette_loader.made == [text] * 3


def test_the_secret_scanner_composes_once_with_the_c_parser(plain_loader: type[Any]) -> None:
    text = TOOL_CALL.read_text(encoding="utf-8")
    assert find_secrets(text) == []
    assert plain_loader.made == [text]


def test_a_damaged_field_is_located_with_one_more_compose(
    cassette_loader: type[Any], plain_loader: type[Any]
) -> None:
    text = TOOL_CALL.read_text(encoding="utf-8").replace("code: 200", "code: '200'", 1)
    with pytest.raises(Exception, match=r"line \d+, column \d+ .*status\.code must be"):
        load_document(text)
    assert (len(cassette_loader.made), len(plain_loader.made)) == (1, 1)


# -- without libyaml ---------------------------------------------------------------------


class _PythonCassetteLoader(yaml.SafeLoader):
    """vcrpy's cassette loader as vcrpy builds it without libyaml."""


for _tag, _constructor in _format.VCR_YAML_LOADER.yaml_constructors.items():
    if isinstance(_tag, str) and _tag.startswith("tag:yaml.org,2002:python/"):
        _PythonCassetteLoader.add_constructor(_tag, _constructor)


@pytest.fixture
def without_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(yaml, "CSafeLoader")
    monkeypatch.setattr(_format, "VCR_YAML_LOADER", _PythonCassetteLoader)
    monkeypatch.setattr(foreign_load, "VCR_YAML_LOADER", _PythonCassetteLoader)


def _stream_with_a_cut_key() -> str:
    key = "sk-" + "proj0123456789abcdefABCDEF"
    body = "".join(
        "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": piece}}]}) + "\n\n"
        for piece in ["my key is ", key[:9], key[9:]]
    )
    request = {"method": "POST", "uri": "https://h/v1/chat/completions", "body": None}
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Type": ["text/event-stream"]},
        "body": {"string": body},
    }
    return serialize(
        {"interactions": [{"request": {**request, "headers": {}}, "response": response}]}
    )


@pytest.mark.parametrize("path", [TOOL_CALL, FORMAT_1], ids=["format 2", "format 1"])
def test_without_libyaml_cassettes_load_the_same(
    path: Path, request: pytest.FixtureRequest
) -> None:
    text = path.read_text(encoding="utf-8")
    with_c = load_document(text)
    foreign_with_c = load_foreign_cassette(path)
    request.getfixturevalue("without_libyaml")
    assert _yaml.safe_loader() is yaml.SafeLoader
    assert load_document(text) == with_c
    assert load_foreign_cassette(path) == foreign_with_c


def test_without_libyaml_the_scanner_finds_the_same(request: pytest.FixtureRequest) -> None:
    text = _stream_with_a_cut_key()
    with_c = find_secrets(text)
    assert [finding.kind for finding in with_c] == [
        "an OpenAI-style API key (sk-...) split across 2 stream events"
    ]
    request.getfixturevalue("without_libyaml")
    assert find_secrets(text) == with_c


@pytest.mark.usefixtures("without_libyaml")
def test_without_libyaml_hostile_yaml_is_still_refused() -> None:
    assert _yaml.safe_loader() is yaml.SafeLoader
    with pytest.raises(YamlTextError, match="repeats the node at line 2 inside itself"):
        load_yaml("x: 1\na: &a [1, *a]\n")
    with pytest.raises(YamlTextError, match="more than 200 deep"):
        compose_yaml("a: " + "[" * 201 + "]" * 201 + "\n")
    laughs = "a: &a [x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(12)
    )
    with pytest.raises(YamlTextError, match="alias budget of 1,000 "):
        load_yaml(laughs, alias_budget=1000)

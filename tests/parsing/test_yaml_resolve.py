"""`quick` gives every node the tag the loader itself gives it, for every YAML file of the
repository, for tricky and generated scalars, and for loaders with resolvers of their own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.cassettes._format import VCR_YAML_LOADER
from harness_conformance.parsing import _resolve
from harness_conformance.parsing._resolve import quick
from harness_conformance.parsing._yaml import compose_yaml

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    path
    for folder in ("tests", "fixtures", "conformance")
    for path in (ROOT / folder).rglob("*.yaml")
)
LOADERS = [getattr(yaml, "CSafeLoader", yaml.SafeLoader), VCR_YAML_LOADER, yaml.SafeLoader]


def _tags(text: str, loader: type[Any]) -> list[tuple[str, str, Any]]:
    """Every node of ``text`` composed with ``loader``: its kind, tag and scalar value."""
    document = yaml.compose(text, Loader=loader)
    found: list[tuple[str, str, Any]] = []
    stack = [document] if document is not None else []
    while stack:
        node = stack.pop()
        kind = "scalar" if isinstance(node, yaml.ScalarNode) else str(type(node).__name__)
        found.append((kind, node.tag, node.value if kind == "scalar" else None))
        if isinstance(node, yaml.MappingNode):
            stack.extend(child for pair in reversed(node.value) for child in reversed(pair))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
    return found


def _agree(text: str, loaders: list[type[Any]] = LOADERS) -> None:
    for loader in loaders:
        try:
            expected = _tags(text, loader)
        except yaml.YAMLError as exc:
            with pytest.raises(type(exc)):
                _tags(text, quick(loader))
            continue
        assert _tags(text, quick(loader)) == expected, loader


@pytest.mark.slow
def test_repository_files_get_the_loaders_tags() -> None:
    assert len(FILES) > 200
    for number, path in enumerate(FILES):
        # The pure-Python loader composes ten times slower: every tenth file for it.
        loaders = LOADERS if number % 10 == 0 else LOADERS[:2]
        _agree(path.read_text("utf-8"), loaders)


PLAIN = [
    "",
    "~",
    "null",
    "Null",
    "NULL",
    "nul",
    "true",
    "True",
    "yes",
    "Yes",
    "no",
    "NO",
    "on",
    "off",
    "Off",
    "y",
    "n",
    "0",
    "-0",
    "+1",
    "007",
    "010",
    "09",
    "0x1F",
    "0o17",
    "0b101",
    "1_000",
    "190:20:30",
    "1.5",
    ".5",
    ".inf",
    "-.Inf",
    ".NaN",
    "1e3",
    "1.0e+3",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "<<",
    "=",
    "content",
    "role",
    "text/event-stream",
    "-",
    "+",
    ".",
    "0.",
    "12:30",
    "ye",
    "tr",
    "f",
    "F",
    "o",
    "O",
    "N",
    "Y",
    "T",
]


@pytest.mark.parametrize("scalar", PLAIN)
def test_plain_and_quoted_scalars_get_the_loaders_tags(scalar: str) -> None:
    _agree(f"a: {scalar}\n")
    _agree(f"- {scalar}\n- '{scalar}'\n- \"{scalar}\"\n- !!str {scalar}\n")


@given(st.text(alphabet=st.sampled_from("0123456789+-._:eExXoObB~yYnNtTfF<=lu aA"), max_size=8))
def test_generated_plain_scalars_get_the_loaders_tags(scalar: str) -> None:
    _agree(f"key: {scalar}\n")


def _documents() -> Iterator[str]:
    yield "a: [1, x, {b: true}]\n"
    yield "c12: c12\n? c7\n: [c9, 'c3']\n"


def test_a_loader_with_its_own_implicit_resolver_keeps_it() -> None:
    class Colours(yaml.SafeLoader):
        pass

    Colours.add_implicit_resolver("!colour", re.compile(r"^c[0-9]+$"), list("c"))
    for text in _documents():
        _agree(text, [Colours])
    assert _tags("[c12, c]", quick(Colours))[1:] == [
        ("scalar", "!colour", "c12"),
        ("scalar", "tag:yaml.org,2002:str", "c"),
    ]


def test_a_loader_with_a_resolver_for_any_first_character_keeps_it() -> None:
    class Anything(yaml.SafeLoader):
        pass

    Anything.add_implicit_resolver("!word", re.compile(r"^[a-z]+$"), None)
    assert _tags("[abc, Abc]", quick(Anything))[1:] == [
        ("scalar", "!word", "abc"),
        ("scalar", "tag:yaml.org,2002:str", "Abc"),
    ]
    for text in _documents():
        _agree(text, [Anything])


def test_a_loader_with_path_resolvers_keeps_them() -> None:
    class Paths(yaml.SafeLoader):
        pass

    Paths.add_path_resolver("!point", ["point"], dict)
    Paths.add_path_resolver("!name", ["point", "name"], str)
    text = "point: {name: x, y: 2}\nother: {name: z}\n"
    _agree(text, [Paths])
    assert ("MappingNode", "!point", None) in _tags(text, quick(Paths))
    assert ("scalar", "!name", "x") in _tags(text, quick(Paths))


def test_a_loader_that_resolves_its_own_way_is_used_as_it_is() -> None:
    class Upper(yaml.SafeLoader):
        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            return (
                "!upper" if kind is yaml.ScalarNode else str(super().resolve(kind, value, implicit))  # type: ignore[no-untyped-call]
            )

    assert quick(Upper) is Upper
    node = compose_yaml("[a, 1]", loader=Upper)
    assert isinstance(node, yaml.SequenceNode)
    assert [child.tag for child in node.value] == ["!upper", "!upper"]
    assert quick(yaml.SafeLoader) is quick(yaml.SafeLoader)
    assert quick(yaml.SafeLoader) is not yaml.SafeLoader


def test_loaders_made_on_the_fly_do_not_pile_up() -> None:
    for _ in range(200):
        made = type("Fresh", (yaml.SafeLoader,), {})
        assert _tags("a: [1, x]", quick(made)) == _tags("a: [1, x]", made)
    assert len(_resolve._MADE) <= _resolve._MOST

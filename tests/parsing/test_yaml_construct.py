"""`construct` builds the value PyYAML's own constructor builds, type for type, for every
YAML file of the repository and for generated documents, with each loader we use."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from _same import same
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.cassettes._format import VCR_YAML_LOADER
from harness_conformance.parsing import _construct
from harness_conformance.parsing._yaml import load_yaml, safe_loader

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    path
    for folder in ("tests", "fixtures", "conformance")
    for path in (ROOT / folder).rglob("*.yaml")
)
LOADERS = [safe_loader(), VCR_YAML_LOADER, yaml.SafeLoader]


def _standard(text: str, loader: type[Any]) -> Any:
    return yaml.load(text, Loader=loader)


def test_the_repository_has_yaml_of_every_kind() -> None:
    texts = [path.read_text("utf-8") for path in FILES]
    assert len(FILES) > 200
    assert any("!!binary" in text for text in texts)


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_repository_files_build_as_pyyaml_builds_them(path: Path) -> None:
    text = path.read_text("utf-8")
    for loader in LOADERS:
        try:
            expected = _standard(text, loader)
        except yaml.YAMLError as exc:
            with pytest.raises(type(exc)):
                load_yaml(text, loader=loader)
            continue
        assert same(load_yaml(text, loader=loader), expected), loader


TRICKY = [
    "a: 007",
    "a: 010",
    "a: 09",
    "a: 0x1F",
    "a: 0o17",
    "a: 0b101",
    "a: 1_000",
    "a: +5",
    "a: -0",
    "a: 190:20:30",
    "a: 1.5",
    "a: .inf",
    "a: -.Inf",
    "a: .NaN",
    "a: 1e3",
    "a: yes",
    "a: Off",
    "a: ON",
    "a: ~",
    "a: null",
    "a:",
    "a: 2001-12-14",
    "a: 2001-12-14t21:59:43.10-05:00",
    "a: !!binary aGVsbG8=",
    "a: !!str 12",
    "a: !!int '12'",
    "a: !!float '1'",
    "a: '12'",
    "? [1, 2]\n: x",
    "1: one\n2: two",
    "true: yes",
    "=: value",
    "<<: {b: 1}\na: 2",
    "a: !!set {x, y}",
    "a: !!omap [x: 1, y: 2]",
    "a: !!pairs [x: 1, x: 2]",
    "a: 1\na: 2",
    "- [a, {b: [c, 1, null]}]\n- !!python/tuple [1, 2]",
    "a: !!python/unicode text",
    "a: !!python/str text",
    "- &x [1]\n- *x",
    "!!str",
    "12",
    "[]",
    "{}",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_documents_build_as_pyyaml_builds_them(text: str) -> None:
    for loader in LOADERS:
        try:
            expected = _standard(text, loader)
        except yaml.YAMLError as exc:
            with pytest.raises(type(exc)):
                load_yaml(text, loader=loader)
            continue
        got = load_yaml(text, loader=loader)
        assert same(got, expected), (loader, got, expected)


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(
        ["010", "007", "0x1F", "1_0", "yes", "No", "~", "1:20", "2020-01-01", ".5", "-0"]
    ),
    st.dates(),
    st.binary(max_size=8),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(max_size=5) | st.integers(-3, 3) | st.booleans(), inner, max_size=4
        )
    ),
    max_leaves=20,
)


@given(_VALUES, st.booleans())
def test_generated_documents_build_as_pyyaml_builds_them(value: Any, flow: bool) -> None:
    text = yaml.safe_dump(value, default_flow_style=flow, allow_unicode=True)
    for loader in LOADERS:
        assert same(load_yaml(text, loader=loader), _standard(text, loader))


def test_a_loader_with_its_own_string_constructor_is_left_to_pyyaml() -> None:
    class Shouting(yaml.SafeLoader):
        pass

    def upper(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
        return str(loader.construct_scalar(node)).upper()

    Shouting.add_constructor("tag:yaml.org,2002:str", upper)
    assert load_yaml("a: [b, c]", loader=Shouting) == {"A": ["B", "C"]}
    assert _construct._fast_for(Shouting) is False
    assert _construct._fast_for(VCR_YAML_LOADER) is True


def test_a_document_with_anchors_keeps_its_shared_values_shared() -> None:
    value = load_yaml("- &x [1, 2]\n- *x\n")
    assert value[0] is value[1]


def test_dates_and_binary_are_built_by_pyyaml() -> None:
    value = load_yaml("a: 2001-12-14\nb: !!binary aGVsbG8=\n")
    assert value == {"a": datetime.date(2001, 12, 14), "b": b"hello"}

"""YAML from outside is loaded in bounded time and memory: alias expansion past the
budget (the "billion laughs"), recursive aliases and deep nesting are named errors
(CASSETTE_CORRUPT for cassettes, the scenario's usage error for scenario files)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from _bounded import finishes

from harness_conformance.cassettes import (
    CassettePersister,
    load_document,
    load_foreign_cassette,
    serializer,
)
from harness_conformance.errors import CassetteError
from harness_conformance.parsing._yaml import (
    ALIAS_BUDGET,
    ALIAS_BUDGET_ENV,
    MAX_DEPTH,
    YamlTextError,
    compose_yaml,
    load_yaml,
    resolve_alias_budget,
)
from harness_conformance.recording import ScenarioError, load_scenario


@pytest.fixture
def bomb(hostile: SimpleNamespace, tmp_path: Path) -> Path:
    path = tmp_path / "laughs.yaml"
    path.write_text(hostile.laughs_cassette(), encoding="utf-8")
    assert path.stat().st_size < 1500
    return path


def test_the_plugin_loader_refuses_a_billion_laughs_quickly(
    hostile: SimpleNamespace, bomb: Path
) -> None:
    out = hostile.run_bounded(f"""
        from harness_conformance.cassettes import CassettePersister, serializer
        from harness_conformance.errors import CassetteError
        try:
            CassettePersister().load_cassette({str(bomb)!r}, serializer)
        except CassetteError as exc:
            print(exc.code, exc)
    """)
    assert out.startswith(f"CASSETTE_CORRUPT cassette {bomb} is damaged at line 8")
    assert "alias budget of 10,000,000" in out
    assert ALIAS_BUDGET_ENV in out


def test_the_replay_loader_refuses_a_billion_laughs_quickly(
    hostile: SimpleNamespace, bomb: Path
) -> None:
    out = hostile.run_bounded(f"""
        from harness_conformance.cassettes import load_foreign_cassette
        from harness_conformance.errors import CassetteError
        try:
            load_foreign_cassette({str(bomb)!r})
        except CassetteError as exc:
            print(exc.code, exc)
    """)
    assert out.startswith(f"CASSETTE_CORRUPT {bomb}: line 8: the aliases up to the node at line 8")


def test_a_scenario_file_of_laughs_is_a_scenario_error(
    hostile: SimpleNamespace, tmp_path: Path
) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(hostile.laughs() + "prompts: [*a8]\n", encoding="utf-8")
    out = hostile.run_bounded(f"""
        from harness_conformance.recording import ScenarioError
        from harness_conformance.recording import load_scenario
        try:
            load_scenario({str(path)!r})
        except ScenarioError as exc:
            print("usage:", exc)
    """)
    assert out.startswith(f"usage: scenario file {path} at line 7, column 5:")
    assert "alias budget" in out


def test_small_aliases_load_as_before(tmp_path: Path) -> None:
    # vcrpy's own dumper writes anchors for objects shared between interactions.
    text = "a: &id001 {x: [1, 2]}\nb: *id001\nc: [*id001, *id001]\n"
    assert load_yaml(text) == yaml.safe_load(text)
    assert load_yaml(text, loader=yaml.SafeLoader) == yaml.safe_load(text)


def test_the_budget_counts_nodes_and_characters_and_can_be_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "a: &a " + "x" * 1000 + "\nb: [" + ", ".join(["*a"] * 20) + "]\n"
    # Twenty aliases of a 1,000-character scalar add 20 * 1,001.
    assert load_yaml(text, alias_budget=20 * 1001)["b"][0] == "x" * 1000
    with pytest.raises(YamlTextError, match=r"alias budget of 20,019 ") as caught:
        load_yaml(text, alias_budget=20 * 1001 - 1)
    assert caught.value.problem_mark is not None
    assert caught.value.problem_mark.line == 1  # the list of aliases, on line 2
    monkeypatch.setenv(ALIAS_BUDGET_ENV, "100")
    assert resolve_alias_budget() == 100
    with pytest.raises(YamlTextError, match="alias budget of 100 "):
        load_yaml(text)
    monkeypatch.setenv(ALIAS_BUDGET_ENV, "lots")
    with pytest.raises(ValueError, match=f"{ALIAS_BUDGET_ENV} must be a non-negative integer"):
        load_yaml(text)
    monkeypatch.delenv(ALIAS_BUDGET_ENV)
    assert resolve_alias_budget() == ALIAS_BUDGET


def test_the_budget_is_raised_for_the_plugin_loader_by_the_environment(
    hostile: SimpleNamespace, bomb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = bomb.with_name("small.yaml")
    small.write_text(hostile.laughs_cassette(levels=3), encoding="utf-8")
    monkeypatch.setenv(ALIAS_BUDGET_ENV, "10")
    with pytest.raises(CassetteError, match="alias budget of 10 ") as caught:
        CassettePersister().load_cassette(small, serializer)
    assert caught.value.code == "CASSETTE_CORRUPT"
    monkeypatch.setenv(ALIAS_BUDGET_ENV, "1000000")
    requests, responses = CassettePersister().load_cassette(small, serializer)
    assert len(requests) == len(responses) == 1


@pytest.mark.parametrize("loader", [yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)])
def test_a_recursive_alias_is_refused(loader: type[yaml.SafeLoader]) -> None:
    with pytest.raises(YamlTextError, match="repeats the node at line 2 inside itself"):
        load_yaml("x: 1\na: &a [1, *a]\n", loader=loader)


@pytest.mark.slow
@pytest.mark.parametrize("loader", [yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)])
@pytest.mark.parametrize("opening", ["[", "{a: "])
def test_deep_nesting_is_a_named_error(loader: type[yaml.SafeLoader], opening: str) -> None:
    closing = "]" if opening == "[" else "}"
    text = "a: " + opening * 100_000 + closing * 100_000 + "\n"
    with pytest.raises(yaml.YAMLError, match=r"nest|depth"):
        finishes(lambda: load_yaml(text, loader=loader), what="load_yaml")
    if loader is not yaml.SafeLoader:  # the pure-Python scanner is slow on 200,000 brackets
        with pytest.raises(yaml.YAMLError, match=r"nest|depth"):
            finishes(lambda: compose_yaml(text, loader=loader), what="compose_yaml")
    shallow = "a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n"
    assert load_yaml(shallow, loader=loader) is not None
    deeper = "a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n"
    with pytest.raises(YamlTextError, match=f"more than {MAX_DEPTH} deep"):
        load_yaml(deeper, loader=loader)


def test_deep_cassettes_and_scenarios_are_named_errors(tmp_path: Path) -> None:
    deep = "interactions: " + "[" * 100_000 + "]" * 100_000 + "\n"
    cassette = tmp_path / "deep.yaml"
    cassette.write_text(deep, encoding="utf-8")
    for load in (
        load_foreign_cassette,
        lambda path: CassettePersister().load_cassette(path, serializer),
    ):
        with pytest.raises(CassetteError) as caught:
            load(cassette)
        assert caught.value.code == "CASSETTE_CORRUPT"
        assert str(cassette) in str(caught.value)
    with pytest.raises(CassetteError, match="more than 200 deep"):
        load_document("interactions: " + "[" * 300 + "]" * 300 + "\n", path="x.yaml")
    scenario = tmp_path / "deep-scenario.yaml"
    scenario.write_text(deep.replace("interactions", "prompts"), encoding="utf-8")
    with pytest.raises(ScenarioError, match=f"scenario file {scenario}"):
        load_scenario(scenario)


def test_the_secret_scanner_composes_laughs_without_expanding_them(
    hostile: SimpleNamespace,
) -> None:
    text = hostile.laughs() + "key: sk-" + "Ab3dEf9h" * 5 + "\n"
    # Expanded, the aliases are 9**9 strings: far past the child's memory limit.
    out = hostile.run_bounded(f"""
        from harness_conformance.cassettes import find_secrets
        print([finding.line for finding in find_secrets({text!r})])
        """)
    assert out.splitlines() == ["[10]"]

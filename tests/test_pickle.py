"""Every public class says where it is importable, and the public values pickle.

A class's ``__module__`` is where `pickle` and reprs look it up. Each part sets it one
way: a loop at the end of the part's package ``__init__``, to the shortest public
module that exports the class (the facade for the names the facade exports). A class
that no part claims keeps the private module it is defined in, importable all the same.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pickle
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import harness_conformance as hc
from harness_conformance import chaos
from harness_conformance.cassettes.foreign import InvalidToolCall, UncheckedToolCall

SOURCE = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SOURCE / "harness_conformance"


def _public_module_names() -> list[str]:
    """The package, every sub-package and every module whose path has no private part."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(part.startswith("_") for part in parts):
            names.append(".".join(parts))
    return names


PUBLIC_MODULES = _public_module_names()


def _modules() -> list[ModuleType]:
    return [importlib.import_module(name) for name in PUBLIC_MODULES]


def _exported_classes() -> dict[type[Any], list[str]]:
    """Each class of the package some public module exports, with those modules."""
    found: dict[type[Any], list[str]] = {}
    for module in _modules():
        for attr in getattr(module, "__all__", ()):
            value = getattr(module, attr)
            if inspect.isclass(value) and value.__module__.startswith("harness_conformance"):
                found.setdefault(value, []).append(module.__name__)
    return found


CLASSES = _exported_classes()


def _name(cls: type[Any]) -> str:
    return cls.__qualname__


def test_the_public_modules_were_found() -> None:
    assert {"harness_conformance", "harness_conformance.chaos"} <= set(PUBLIC_MODULES)
    assert chaos.Fault in CLASSES
    assert len(CLASSES) > 100


@pytest.mark.parametrize("cls", list(CLASSES), ids=_name)
def test_a_class_is_importable_where_its_module_says(cls: type[Any]) -> None:
    assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls


def _defining_modules() -> dict[str, set[str]]:
    """The modules whose source has a top-level ``class`` statement of each name."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        for node in ast.parse(path.read_text("utf-8")).body:
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, set()).add(".".join(parts))
    return found


DEFINED_IN = _defining_modules()


@pytest.mark.parametrize("cls", list(CLASSES), ids=_name)
def test_a_claimed_module_is_the_shortest_one_exporting_the_class(cls: type[Any]) -> None:
    if cls.__module__ in DEFINED_IN.get(cls.__qualname__, set()):
        return  # unclaimed: the module that defines it
    exporters = CLASSES[cls]
    shortest = min(name.count(".") for name in exporters)
    assert cls.__module__ in exporters, f"{cls.__qualname__} claims {cls.__module__}"
    assert cls.__module__.count(".") == shortest, f"{cls.__qualname__}: {sorted(exporters)}"


def _module_assignments(tree: ast.Module) -> Iterator[tuple[ast.expr, bool]]:
    """Every assignment to ``__module__``, with whether it is an ``x.__module__ = ...``
    in the body of a module-level ``for`` loop."""
    looped: set[ast.AST] = set()
    for loop in tree.body:
        if isinstance(loop, ast.For):
            looped.update(node for statement in loop.body for node in ast.walk(statement))
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "__module__":
                yield target, False
            if isinstance(target, ast.Attribute) and target.attr == "__module__":
                yield target, target in looped


@pytest.mark.slow
def test_module_is_set_one_way_in_a_package_init() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)}, line {target.lineno}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for target, in_loop in _module_assignments(ast.parse(path.read_text("utf-8")))
        if not (path.name == "__init__.py" and in_loop)
    ]
    assert wrong == [], "set __module__ in the loop at the end of the part's __init__"


def _instances() -> list[Any]:
    failure = hc.LlmFailure("slow down", "RATE_LIMIT", status=429, retry_after=1.5)
    fault = chaos.Fault(interaction=1, kind="status", status=429, retry_after=2)
    return [
        fault,
        chaos.FuzzExample(cuts={0: (1, 2)}, fault=fault),
        chaos.ServedResponse(interaction=0, status=200, headers={"a": "b"}, body=b"{}"),
        chaos.SeenRequest(method="POST", url="http://x/v1", body=b"{}", interaction=0),
        hc.ToolCall("c1", "add", '{"a": 1}'),
        hc.ToolExecutionResult("c1", "add", "1", is_error=False, value=1),
        hc.RetryPolicy(attempts=2),
        hc.SchemaProblem("a", "must be an integer"),
        failure,
        hc.Violation("seq-contiguous", 3, "seq jumps"),
        hc.SessionHeader(id="s1", created_at=5),
        InvalidToolCall(interaction=0, tool="t", call_id="c", arguments="{}", messages=("m",)),
        UncheckedToolCall(interaction=0, tool="t", call_id="c", arguments="{}", reason="r"),
        hc.HarnessError("boom"),
        hc.SchemaError("bad", problems=[hc.SchemaProblem("a", "must be")]),
        hc.ToolArgsError(["x must be an integer"], tool="t"),
        hc.ToolNotFoundError("t"),
        hc.ToolOutputError("bad output"),
        hc.AbortError("stopped"),
        hc.LlmError(failure),
        hc.InvariantError("bad", rule="seq-contiguous", seq=3),
        hc.CassetteError("bad", code=hc.CassetteError.codes[0], path="a.yaml"),
        hc.SessionLogError(Path("a.jsonl"), 3, "not JSON", "fix the line"),
    ]


def _same(back: Any, value: Any) -> bool:
    if isinstance(value, BaseException):
        return (
            type(back) is type(value)
            and back.args == value.args
            and vars(back) == vars(value)
            and str(back) == str(value)
        )
    return bool(back == value)


@pytest.mark.parametrize("value", _instances(), ids=lambda value: type(value).__qualname__)
def test_a_public_value_pickles_and_unpickles_equal(value: Any) -> None:
    assert _same(pickle.loads(pickle.dumps(value)), value)


def test_sdk_missing_pickles() -> None:
    value = chaos.SdkMissing("openai-chat", "openai", "openai")
    assert _same(pickle.loads(pickle.dumps(value)), value)

"""The facade and every part export exactly their public names, sorted; the facade's
classes report the facade."""

from __future__ import annotations
import __future__

import importlib
import inspect
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import harness_conformance
import harness_conformance.schema

ROOT = Path(__file__).resolve().parents[1]


def _isort_key(name: str) -> tuple[int, str]:
    """Constants first, then classes, then functions: the order ruff's RUF022 keeps."""
    if name.isupper():
        return (0, name)
    return (1 if name[0].isupper() else 2, name)


def _public_names(module: object) -> set[str]:
    """Names without an underscore, leaving out imported modules, except the package's own
    modules given another name (``cassettes.serializer``)."""
    prefix = getattr(module, "__name__", "") + "."
    return {
        name
        for name, value in vars(module).items()
        if name.isidentifier()
        and not name.startswith("_")
        and not (
            inspect.ismodule(value)
            and (value.__name__ == prefix + name or not value.__name__.startswith(prefix))
        )
        and not isinstance(value, __future__._Feature)
        and name != "pytest_plugins"
    }


PACKAGES = sorted(
    path.parent.relative_to(ROOT / "src").as_posix().replace("/", ".")
    for path in (ROOT / "src" / "harness_conformance").rglob("__init__.py")
    if path.parent.name != "plugin"
)
"""Every package but the pytest wiring, whose hooks and fixtures are its names."""


@pytest.mark.parametrize("name", [*PACKAGES, "harness_conformance.session_log"])
def test_every_part_exports_exactly_its_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported, key=_isort_key)
    assert len(set(exported)) == len(exported)
    lazy = set(getattr(module, "_LAZY", {}))
    assert set(exported) == _public_names(module) | lazy


@pytest.mark.parametrize("module", [harness_conformance, harness_conformance.schema])
def test_all_is_sorted_and_matches_public_names(module: object) -> None:
    exported = list(module.__all__)  # type: ignore[attr-defined]
    assert exported == sorted(exported, key=_isort_key)
    assert len(set(exported)) == len(exported)
    lazy = set(getattr(module, "_LAZY", {}))
    assert set(exported) == _public_names(module) | lazy
    assert all(getattr(module, name) is not None for name in exported)


@pytest.mark.parametrize("module", [harness_conformance, harness_conformance.schema])
def test_every_exported_class_reports_its_facade(module: object) -> None:
    name = module.__name__  # type: ignore[attr-defined]
    for attr in module.__all__:  # type: ignore[attr-defined]
        value = getattr(module, attr)
        if inspect.isclass(value):
            assert value.__module__ == name, f"{attr} reports {value.__module__}"


def test_design_names_are_exported() -> None:
    wanted = {
        "s",
        "validate_args",
        "to_json_schema",
        "from_json_schema",
        "parse_arguments",
        "define_tool",
        "tool",
        "Tool",
        "ToolRegistry",
        "ToolExecutionResult",
        "HarnessError",
        "SchemaError",
        "ToolArgsError",
        "ToolNotFoundError",
        "ToolOutputError",
        "AbortError",
        "LlmError",
        "InvariantError",
        "CassetteError",
        "error_chain",
        "error_info",
    }
    assert wanted <= set(harness_conformance.__all__)


def test_importing_the_package_loads_no_test_dependencies() -> None:
    code = (
        "import sys, harness_conformance, harness_conformance.plugin; "
        "heavy = ('vcr', 'syrupy', 'hypothesis', 'jsonschema', 'yaml', 'sysconfig'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines()


@pytest.mark.slow
def test_the_readme_main_job_replays_the_shipped_cassettes() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert block is not None
    install, _, job = block.group(1).splitlines()[0].partition(" && ")
    assert install == "python -m pip install ."
    program, *arguments = job.split()
    assert (program, arguments) == ("harness-conformance", ["replay", "fixtures/cassettes"])
    out = subprocess.run(
        [sys.executable, "-m", "harness_conformance", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HARNESS_PROGRESS": "0"},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    shipped = list((ROOT / "fixtures" / "cassettes").rglob("*.yaml"))
    totals = out.stdout.rstrip().splitlines()[-1]
    assert re.fullmatch(
        rf"{len(shipped)} cassettes, 0 violations, \d+ invalid tool calls?, 0 errors", totals
    ), totals


def test_clear_caches_empties_the_cache_of_every_part() -> None:
    import ssl

    import yaml

    from harness_conformance.cassettes import _json_style, _match, _persist
    from harness_conformance.cassettes.foreign import _replay
    from harness_conformance.events import TurnStartEvent, _codec, event_to_json
    from harness_conformance.models import _openai_compat
    from harness_conformance.parsing import _construct, _resolve
    from harness_conformance.parsing._yaml import load_yaml
    from harness_conformance.replay import _machine_paths
    from harness_conformance.schema import _caches, from_json_schema, validate_args
    from harness_conformance.strategies import _specs

    load_yaml("a: [1]", loader=yaml.SafeLoader)
    event_to_json(TurnStartEvent(seq=0, time=0, turn=1))
    _openai_compat._SSL_CONTEXTS["lib", None, None] = ssl.create_default_context()
    _machine_paths.path_replacer()("text")
    _persist._PARSED.put(("a.yaml", "format"), b"x", {})
    _match.canonical_body(b'{"a": 1}', ("a",))
    _json_style.dump_json({}, "compact")
    _replay._KEPT.put("{}", from_json_schema({}))
    _specs.specs()
    spec = from_json_schema({"type": "object"})
    validate_args(spec, {})
    caches: dict[str, Callable[[], int]] = {
        "spec validators": lambda: len(_caches.ENTRIES),
        "parsing fast paths": lambda: len(_construct._FAST),
        "parsing loaders": lambda: len(_resolve._MADE),
        "event fields": lambda: len(_codec._FIELDS),
        "ssl contexts": lambda: len(_openai_compat._SSL_CONTEXTS),
        "machine paths": lambda: _machine_paths._pattern.cache_info().currsize,
        "parsed cassettes": lambda: len(_persist._PARSED._entries),
        "volatile paths": lambda: _match.parse_volatile_path.cache_info().currsize,
        "canonical bodies": lambda: _match._canonical_bytes.cache_info().currsize,
        "json encoders": lambda: len(_json_style._ENCODERS),
        "foreign specs": lambda: len(_replay._KEPT.specs),
        "spec strategies": lambda: _specs._nodes.cache_info().currsize,
    }
    assert [name for name, size in caches.items() if not size()] == []
    harness_conformance.clear_caches()
    assert {name: size() for name, size in caches.items()} == dict.fromkeys(caches, 0)


def test_clear_caches_imports_no_part() -> None:
    code = (
        "import sys, harness_conformance; before = set(sys.modules); "
        "harness_conformance.clear_caches(); print(sorted(set(sys.modules) - before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_clear_caches_calls_the_clear_caches_of_every_part_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    called: list[str] = []
    for name in ("harness_conformance.schema", "harness_conformance.cassettes"):
        module = importlib.import_module(name)
        monkeypatch.setattr(module, "clear_caches", lambda name=name: called.append(name))
    harness_conformance.clear_caches()
    assert sorted(called) == ["harness_conformance.cassettes", "harness_conformance.schema"]

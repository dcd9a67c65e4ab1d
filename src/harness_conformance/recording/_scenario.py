"""Recording scenarios: what the ``record`` command sends to a model, and the recording.

A scenario file (YAML or JSON) holds one mapping::

    provider: anthropic-messages    # optional wire format; the command line's --provider wins
    model: deepseek-chat            # optional; the command line's --model wins
    base_url: https://...           # optional; the command line's --base-url wins
    system: You are terse.          # optional
    prompts: [first prompt, second prompt]
    tools:                          # optional
      - name: get_weather
        description: Current weather for a city.
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
        result: "sunny, 21 C"       # one of result, results or python
    settings: {temperature: 0}      # optional; merged into every request body

A tool answers every call with ``result``, or call after call with ``results`` (a call
beyond the list gets an error result), or by calling ``python`` (``package.module:function``,
imported from ``sys.path`` or from the scenario's own folder) with the call's arguments
as keywords. ``parameters`` is a JSON Schema, imported with `from_json_schema`.

`load_scenario` reports the first problem as a `ScenarioError` naming the file, the key
path and what to do. `record_scenario` runs the real `Agent` loop through the model of
the chosen wire format (`harness_conformance.models.model_for`: chat-completions,
Anthropic Messages, OpenAI Responses or Gemini) under `use_cassette`, so the cassette is
scrubbed of the key, scanned for secrets and written only when the whole run
completes: the recording goes to a temporary file beside the target and is renamed over
it at the end, and any failure or interruption removes the temporary file.
"""

from __future__ import annotations

import importlib
import json
import os
import secrets as _random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import yaml

from ..agent import Agent, TurnResult
from ..cassettes import make_vcr, use_cassette
from ..errors import SchemaError
from ..events import DurableEvent, ToolCallEvent, write_session_log
from ..invariants import InvariantChecker, Violation
from ..models import PROVIDERS, Model, model_for
from ..parsing import load_yaml
from ..redaction import Secret, declared_secrets, redact_events
from ..schema import from_json_schema
from ..tools import Tool, define_tool
from ._values import long_integer_problem, read_json_int, value_problem

__all__ = [
    "Recording",
    "Scenario",
    "ScenarioError",
    "ScenarioTool",
    "load_scenario",
    "record_scenario",
    "scenario_from_prompts",
]


class ScenarioError(ValueError):
    """A scenario file, or a recording made from one, that cannot be used; the message
    names the file, the place and what to do."""


_TOP_KEYS = ("provider", "model", "base_url", "system", "prompts", "tools", "settings")
_TOOL_KEYS = ("name", "description", "parameters", "result", "results", "python")
_ANSWERS = ("result", "results", "python")


@dataclass(frozen=True)
class ScenarioTool:
    """One tool of a scenario, ready to register."""

    name: str
    """The tool name the model sees."""
    tool: Tool
    """The tool, with its imported spec and its answering function."""


@dataclass(frozen=True)
class Scenario:
    """What to send: prompts in order, tools, a system text and request settings."""

    prompts: tuple[str, ...]
    """One user prompt per turn."""
    provider: str | None = None
    """The wire format named by the file, if any."""
    model: str | None = None
    """The model named by the file, if any."""
    base_url: str | None = None
    """The base URL named by the file, if any."""
    system: str | None = None
    """The system text."""
    tools: tuple[ScenarioTool, ...] = ()
    """The tools offered to the model."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Request settings merged into every request body (temperature, max_tokens...)."""
    source: str | None = None
    """The scenario file, when there is one."""


def scenario_from_prompts(prompts: Sequence[str]) -> Scenario:
    """A scenario of bare prompts, without tools."""
    return Scenario(prompts=tuple(prompts))


# -- loading ------------------------------------------------------------------------------


def _problem(path: Path, where: str, what: str) -> ScenarioError:
    place = f" at {where}" if where else ""
    return ScenarioError(f"scenario file {path}{place}: {what}")


def _read_document(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"scenario file {path} does not exist; check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"scenario file {path} cannot be read: {exc}") from exc
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text, parse_int=read_json_int)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            raise _problem(path, where, f"not valid JSON ({exc.msg}); fix the syntax") from exc
        except RecursionError:
            raise _problem(path, "", "nested too deeply to read; flatten the file") from None
    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise _problem(path, where, f"not valid YAML ({problem}); fix the syntax") from exc
    except ValueError as exc:  # an integer too long to convert
        raise _problem(path, *long_integer_problem(text, exc)) from None


def _check_keys(path: Path, where: str, value: Mapping[Any, Any], allowed: Sequence[str]) -> None:
    for key in value:
        if key not in allowed:
            name = f"{where}.{key}" if where else str(key)
            raise _problem(
                path, name, f"unknown key {key!r}; the keys allowed here are {', '.join(allowed)}"
            )


def _text(path: Path, where: str, value: object, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        kind = "text" if empty else "non-empty text"
        raise _problem(
            path,
            where,
            f"must be {kind}, not {value!r}; quote the value if YAML read it as another type",
        )
    return value


def _import_python(path: Path, where: str, target: object) -> Callable[..., Any]:
    reference = _text(path, where, target)
    module_name, colon, attribute = reference.partition(":")
    if not colon or not module_name.strip() or not attribute.strip():
        raise _problem(path, where, f"{reference!r} must be written package.module:function")
    folder = str(path.resolve().parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        module = importlib.import_module(module_name.strip())
    except Exception as exc:  # an imported module may fail with anything
        raise _problem(
            path,
            where,
            f"cannot import module {module_name.strip()!r} ({type(exc).__name__}: {exc}); "
            "install it, put it beside the scenario file, or add its folder to PYTHONPATH",
        ) from exc
    finally:
        if added:
            sys.path.remove(folder)
    function = getattr(module, attribute.strip(), None)
    if not callable(function):
        raise _problem(
            path, where, f"module {module_name.strip()!r} has no function {attribute.strip()!r}"
        )
    return function  # type: ignore[no-any-return]


def _canned(name: str, result: str | None, results: tuple[str, ...] | None) -> Callable[..., Any]:
    calls = 0

    def answer(**arguments: Any) -> str:
        nonlocal calls
        calls += 1
        if result is not None:
            return result
        assert results is not None
        if calls > len(results):
            raise RuntimeError(
                f"the scenario gives tool {name!r} {len(results)} results and this is call {calls}"
            )
        return results[calls - 1]

    return answer


def _load_tool(path: Path, where: str, raw: object) -> ScenarioTool:
    if not isinstance(raw, Mapping):
        raise _problem(path, where, f"a tool must be a mapping with {', '.join(_TOOL_KEYS)}")
    _check_keys(path, where, raw, _TOOL_KEYS)
    name = _text(path, f"{where}.name", raw.get("name"))
    description = _text(path, f"{where}.description", raw.get("description", ""), empty=True)
    if "parameters" not in raw:
        raise _problem(
            path,
            where,
            f"tool {name!r} has no parameters; give a JSON Schema object, e.g. "
            "{type: object, properties: {}}",
        )
    parameters = raw["parameters"]
    if not isinstance(parameters, Mapping):
        raise _problem(path, f"{where}.parameters", "must be a JSON Schema object (a mapping)")
    try:
        spec = from_json_schema(parameters)
    except SchemaError as exc:
        raise _problem(path, f"{where}.parameters", f"{exc}; use a supported schema") from exc
    given = [key for key in _ANSWERS if key in raw]
    if len(given) != 1:
        raise _problem(
            path,
            where,
            f"tool {name!r} needs exactly one of result, results or python (it has "
            f"{', '.join(given) or 'none'})",
        )
    if given[0] == "python":
        fn = _import_python(path, f"{where}.python", raw["python"])
    elif given[0] == "result":
        fn = _canned(name, _text(path, f"{where}.result", raw["result"], empty=True), None)
    else:
        items = raw["results"]
        if not isinstance(items, list) or not items:
            raise _problem(path, f"{where}.results", "must be a non-empty list of texts")
        texts = tuple(
            _text(path, f"{where}.results[{i}]", item, empty=True) for i, item in enumerate(items)
        )
        fn = _canned(name, None, texts)
    try:
        tool = define_tool(name, description, spec, fn)
    except (SchemaError, ValueError) as exc:
        raise _problem(path, f"{where}.name", str(exc)) from exc
    return ScenarioTool(name=name, tool=tool)


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and check a scenario file; the first problem raises `ScenarioError`."""
    file = Path(path)
    document = _read_document(file)
    if not isinstance(document, Mapping):
        raise _problem(file, "", f"must hold one mapping with the keys {', '.join(_TOP_KEYS)}")
    if (found := value_problem("", document)) is not None:
        raise _problem(file, *found)
    _check_keys(file, "", document, _TOP_KEYS)
    prompts = document.get("prompts")
    if not isinstance(prompts, list) or not prompts:
        raise _problem(file, "prompts", "give a non-empty list of prompts, one per turn")
    texts = tuple(_text(file, f"prompts[{i}]", p) for i, p in enumerate(prompts))
    optional = {
        key: _text(file, key, document[key]) if document.get(key) is not None else None
        for key in ("provider", "model", "base_url", "system")
    }
    if optional["provider"] is not None and optional["provider"] not in PROVIDERS:
        known = ", ".join(PROVIDERS)
        raise _problem(file, "provider", f"must be one of {known}")
    raw_tools = document.get("tools") or []
    if not isinstance(raw_tools, list):
        raise _problem(file, "tools", "must be a list of tools")
    tools = tuple(_load_tool(file, f"tools[{i}]", raw) for i, raw in enumerate(raw_tools))
    names = [tool.name for tool in tools]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise _problem(file, f"tools[{index}].name", f"tool {name!r} is defined twice")
    settings = document.get("settings") or {}
    if not isinstance(settings, Mapping) or not all(isinstance(k, str) for k in settings):
        raise _problem(file, "settings", "must be a mapping of request fields to values")
    return Scenario(
        prompts=texts,
        provider=optional["provider"],
        model=optional["model"],
        base_url=optional["base_url"],
        system=optional["system"],
        tools=tools,
        settings=dict(settings),
        source=str(file),
    )


# -- recording ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Recording:
    """What one recorded run produced."""

    path: Path
    """The cassette written."""
    interactions: int
    """HTTP interactions in the cassette."""
    turns: tuple[TurnResult, ...]
    """One result per prompt sent (a turn that ends in error stops the run)."""
    events: tuple[DurableEvent, ...]
    """The session's durable events."""
    violations: tuple[Violation, ...]
    """Invariant violations found during the run (none when the check is off)."""
    prompts_left: int
    """Prompts not sent because an earlier turn ended in error."""

    @property
    def tool_calls(self) -> int:
        """Tool calls the model made."""
        return sum(isinstance(event, ToolCallEvent) for event in self.events)

    @property
    def error_codes(self) -> tuple[str, ...]:
        """The code of every turn that ended in error, in order."""
        return tuple(
            str(turn.reason.get("error", {}).get("code", "UNKNOWN"))
            for turn in self.turns
            if turn.reason.get("kind") == "error"
        )


async def _drive(
    scenario: Scenario,
    model: Model,
    checker: InvariantChecker | None,
) -> tuple[list[TurnResult], list[DurableEvent]]:
    listeners = [checker] if checker is not None else []
    results: list[TurnResult] = []
    async with Agent(
        model,
        [tool.tool for tool in scenario.tools],
        system=scenario.system,
        settings=scenario.settings,
        listeners=listeners,
        invariants="off",
    ) as agent:
        for prompt in scenario.prompts:
            result = await agent.run(prompt)
            results.append(result)
            if result.reason.get("kind") == "error":
                break
    return results, list(agent.events)


def record_scenario(
    scenario: Scenario,
    target: str | os.PathLike[str],
    *,
    model: str,
    base_url: str,
    api_key: str | Secret,
    invariants: str = "strict",
    log: str | os.PathLike[str] | None = None,
    provider: str = "openai-chat",
) -> Recording:
    """Run ``scenario`` against a live endpoint and record the cassette at ``target``.

    ``target`` is replaced only when the run completes; on any exception (an
    interruption included) nothing is left at or beside it. ``invariants`` is ``off``,
    ``seed`` or ``strict``; violations are collected, not raised. ``log`` also writes
    the session log, scrubbed of ``api_key`` and the other declared secrets.
    ``provider`` is the wire format to record (`harness_conformance.models.PROVIDERS`).
    """
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{_random.token_hex(6)}.recording")
    checker = (
        InvariantChecker(invariants, raise_on_violation=False) if invariants != "off" else None
    )
    key = Secret(api_key)
    client = model_for(provider, model, base_url=base_url, api_key=key.reveal())
    try:
        with use_cassette(make_vcr(secrets=[key]), temporary, mode="rewrite") as use:
            results, events = anyio.run(_drive, scenario, client, checker)
            interactions = len(use.cassette.data)
        if not temporary.exists():
            raise ScenarioError(
                f"nothing was recorded for {path}: the run made no HTTP request; check "
                "the prompts and the base URL"
            )
        if log is not None:
            write_session_log(log, redact_events(events, declared_secrets([key])))
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return Recording(
        path=path,
        interactions=interactions,
        turns=tuple(results),
        events=tuple(events),
        violations=tuple(checker.violations) if checker is not None else (),
        prompts_left=len(scenario.prompts) - len(results),
    )

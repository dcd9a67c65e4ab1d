"""Tools and the registry: validation before the body, `execute`, listeners."""

import asyncio
import re
from collections.abc import Coroutine
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar, cast

import pytest

import harness_conformance
from harness_conformance import tools as tools_module
from harness_conformance.errors import (
    AbortError,
    HarnessError,
    SchemaError,
    ToolArgsError,
)
from harness_conformance.events import LiveEvent, event_to_json
from harness_conformance.schema import s
from harness_conformance.tools import (
    Tool,
    ToolCall,
    ToolExecutionResult,
    ToolRegistry,
    define_tool,
)

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


PATH_SPEC = s.params({"path": s.string(required=True, min_length=1), "limit": s.integer()})


def echo(path: str, limit: int | None = None) -> str:
    return f"{path}:{limit}"


class Recorder:
    """A listener that records every hook and event, sync for pre and async for post."""

    def __init__(self, label: str, log: list[Any]) -> None:
        self.label = label
        self.log = log

    def pre_execute(self, call: ToolCall) -> None:
        self.log.append((self.label, "pre", call.id))

    async def post_execute(self, call: ToolCall, result: ToolExecutionResult) -> None:
        self.log.append((self.label, "post", result.content))

    def on_event(self, event: LiveEvent) -> None:
        wire = event_to_json(event)
        self.log.append((self.label, wire["type"], wire["data"]))


# -- calling a tool ------------------------------------------------------------------------


def test_call_validates_first_and_the_body_never_runs_on_invalid_args() -> None:
    ran: list[Any] = []

    def body(path: str, limit: int | None = None) -> str:
        ran.append(path)
        return path

    read = define_tool("read", "", PATH_SPEC, body)
    with pytest.raises(ToolArgsError) as info:
        run(read.call({"path": "", "limit": "x"}))
    assert info.value.violations == (
        '"path" must be at least 1 character',
        '"limit" must be an integer',
    )
    assert info.value.tool == "read"
    assert ran == []
    assert run(read.call({"path": "a"})) == "a"
    assert ran == ["a"]


def test_sync_and_async_bodies_are_both_awaited_results() -> None:
    async def slow(path: str) -> dict[str, str]:
        await asyncio.sleep(0)
        return {"read": path}

    assert run(define_tool("a", "", None, slow).call({"path": "p"})) == {"read": "p"}
    assert run(define_tool("b", "", None, echo).call({"path": "p", "limit": 2})) == "p:2"
    assert run(define_tool("c", "", None, echo).call(MappingProxyType({"path": "m"}))) == "m:None"


def test_undeclared_keys_of_an_open_root_are_not_passed_to_a_body_without_them() -> None:
    seen: list[dict[str, Any]] = []

    def narrow(path: str) -> str:
        return path

    def wide(path: str, **rest: Any) -> str:
        seen.append(rest)
        return path

    assert run(define_tool("n", "", PATH_SPEC, narrow).call({"path": "p", "extra": 1})) == "p"
    assert run(define_tool("w", "", PATH_SPEC, wide).call({"path": "p", "extra": 1})) == "p"
    assert seen == [{"extra": 1}]


def test_validate_reports_without_raising() -> None:
    read = define_tool("read", "", PATH_SPEC, echo)
    assert read.validate({"path": "a"}) == []
    assert read.validate("not json") == ['"arguments" must be an object']


# -- the registry ---------------------------------------------------------------------------


def test_registry_lookup_order_and_container_protocol() -> None:
    read = define_tool("read", "Read.", PATH_SPEC, echo)
    write = define_tool("write", "Write.", None, echo)
    registry = ToolRegistry([read, write])
    assert registry.get("read") is read
    assert registry.get("missing") is None
    assert registry.names() == ["read", "write"]
    assert [item.name for item in registry] == ["read", "write"]
    assert len(registry) == 2
    assert "write" in registry
    assert "missing" not in registry
    assert registry.definitions() == [read.definition(), write.definition()]
    assert ToolRegistry([read]).names() == ["read"]


def test_a_duplicate_name_is_refused_and_named() -> None:
    registry = ToolRegistry([define_tool("read", "", PATH_SPEC, echo)])
    with pytest.raises(ValueError, match='a tool named "read" is already registered'):
        registry.register(define_tool("read", "", None, echo))
    with pytest.raises(ValueError, match='"read"'):
        registry.register_raw("read", "", {"type": "object"}, echo)


def test_a_raw_tool_shows_its_schema_as_is_and_skips_validation() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    received: list[dict[str, Any]] = []

    def body(**args: Any) -> str:
        received.append(args)
        return "ok"

    registry = ToolRegistry()
    raw = registry.register_raw("mcp_tool", "An MCP tool.", schema, body)
    schema["required"] = []
    assert raw.raw is True
    assert raw.parameters is None
    assert raw.definition()["function"]["parameters"]["required"] == ["n"]
    assert raw.validate({"n": "not an integer"}) == []
    result = run(registry.execute(ToolCall("c1", "mcp_tool", '{"n": "x"}')))
    assert (result.content, result.is_error) == ("ok", False)
    assert received == [{"n": "x"}]


def test_register_raw_needs_a_json_object_schema() -> None:
    with pytest.raises(SchemaError, match="must be a JSON object"):
        ToolRegistry().register_raw("t", "", [], echo)  # type: ignore[arg-type]


# -- execute: success and error results ------------------------------------------------------


def test_execute_returns_str_results_as_is_and_others_as_json() -> None:
    def data(key: str) -> Any:
        return {"key": key, "ü": [1, None]} if key != "text" else "plain ü"

    registry = ToolRegistry([define_tool("data", "", None, data)])
    result = run(registry.execute(ToolCall("c1", "data", '{"key": "k"}')))
    assert result == ToolExecutionResult(
        "c1", "data", '{"key": "k", "ü": [1, null]}', False, None, {"key": "k", "ü": [1, None]}
    )
    text = run(registry.execute(ToolCall("c2", "data", {"key": "text"})))
    assert (text.content, text.value, text.is_error) == ("plain ü", "plain ü", False)


def test_an_unknown_tool_is_an_error_result() -> None:
    result = run(ToolRegistry().execute(ToolCall("c1", "nope", "{}")))
    assert result == ToolExecutionResult(
        "c1",
        "nope",
        'Error: unknown tool "nope"',
        True,
        {"name": "ToolNotFoundError", "code": "UNKNOWN_TOOL"},
    )


def test_invalid_arguments_are_an_error_result_and_the_body_never_runs() -> None:
    ran: list[str] = []

    def body(path: str, limit: int | None = None) -> str:
        ran.append(path)
        return path

    registry = ToolRegistry([define_tool("read", "", PATH_SPEC, body)])
    result = run(registry.execute(ToolCall("c1", "read", '{"limit": 1.5}')))
    assert result.content == (
        'Error: invalid arguments: missing required property "path"; "limit" must be an integer'
    )
    assert result.error == {"name": "ToolArgsError", "code": "INVALID_ARGS"}
    assert result.is_error is True
    assert ran == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", '"arguments" must be an object'),
        ('{"path": NaN}', '"arguments" must be an object'),
        ("", 'missing required property "path"'),
    ],
)
def test_argument_text_is_parsed_before_validation(text: str, message: str) -> None:
    registry = ToolRegistry([define_tool("read", "", PATH_SPEC, echo)])
    result = run(registry.execute(ToolCall("c1", "read", text)))
    assert result.content == "Error: invalid arguments: " + message


def test_a_raising_tool_gives_its_message_and_no_error_info() -> None:
    def broken(path: str) -> str:
        try:
            raise OSError("disk on fire")
        except OSError as exc:
            raise RuntimeError("could not read") from exc

    registry = ToolRegistry([define_tool("broken", "", None, broken)])
    result = run(registry.execute(ToolCall("c1", "broken", {"path": "p"})))
    assert result == ToolExecutionResult(
        "c1", "broken", "Error: could not read: disk on fire", True, None
    )


def test_a_harness_error_from_a_tool_carries_name_and_code() -> None:
    async def cancelled(path: str) -> str:
        raise AbortError("stopped by the user", code="ABORTED")

    registry = ToolRegistry([define_tool("cancelled", "", None, cancelled)])
    result = run(registry.execute(ToolCall("c1", "cancelled", {"path": "p"})))
    assert result.content == "Error: stopped by the user"
    assert result.error == {"name": "AbortError", "code": "ABORTED"}


@pytest.mark.parametrize(
    ("value", "cause"),
    [
        ({1, 2}, "Object of type set is not JSON serializable"),
        (float("nan"), "the float nan has no JSON form (JSON numbers are finite)"),
        ([{"x": -float("inf")}], "the float -inf has no JSON form (JSON numbers are finite)"),
        ((lambda c: cast(Any, c).append(c) or c)([1]), "Circular reference detected"),
        ({"score": -0.0}, "the float -0.0 loses its sign in JSON"),
        ({"rows": [{1: "x"}]}, "the key 1 is not a string (JSON keys are strings)"),
    ],
)
def test_output_that_cannot_be_rendered_is_an_invalid_tool_output_error(
    value: Any, cause: str
) -> None:
    registry = ToolRegistry([define_tool("odd", "", {}, lambda: value)])
    result = run(registry.execute(ToolCall("c1", "odd", "{}")))
    assert result.content == (
        f'Error: tool "odd" returned invalid output: value is not lossless JSON: {cause}'
    )
    assert result.error == {"name": "ToolOutputError", "code": "INVALID_TOOL_OUTPUT"}
    assert result.value is None


# -- listeners --------------------------------------------------------------------------------


def test_listeners_run_in_order_around_the_tool() -> None:
    log: list[Any] = []

    def body(path: str) -> str:
        log.append(("tool", path))
        return "done"

    registry = ToolRegistry([define_tool("read", "", None, body)])
    registry.add_listener(Recorder("A", log))
    registry.add_listener(Recorder("B", log))
    result = run(registry.execute(ToolCall("c1", "read", {"path": "p"})))
    ids = {"callId": "c1", "name": "read"}
    post = {**ids, "isError": False}
    assert result.content == "done"
    assert log == [
        ("A", "tools/pre-execute", ids),
        ("B", "tools/pre-execute", ids),
        ("A", "pre", "c1"),
        ("B", "pre", "c1"),
        ("A", "tools/execute", ids),
        ("B", "tools/execute", ids),
        ("tool", "p"),
        ("A", "post", "done"),
        ("B", "post", "done"),
        ("A", "tools/post-execute", post),
        ("B", "tools/post-execute", post),
    ]


def test_failed_calls_skip_pre_execute_but_reach_post_execute_and_events() -> None:
    log: list[Any] = []
    registry = ToolRegistry()
    registry.add_listener(Recorder("A", log))
    run(registry.execute(ToolCall("c1", "nope", "{}")))
    error = {"name": "ToolNotFoundError", "code": "UNKNOWN_TOOL"}
    assert log == [
        ("A", "tools/pre-execute", {"callId": "c1", "name": "nope"}),
        ("A", "post", 'Error: unknown tool "nope"'),
        (
            "A",
            "tools/post-execute",
            {"callId": "c1", "name": "nope", "isError": True, "error": error},
        ),
    ]


def test_a_raising_pre_execute_listener_blocks_the_call() -> None:
    ran: list[str] = []
    log: list[Any] = []

    class Deny:
        async def pre_execute(self, call: ToolCall) -> None:
            raise PermissionError(f"{call.name} is not allowed here")

    def body(path: str) -> str:
        ran.append(path)
        return path

    registry = ToolRegistry([define_tool("write", "", None, body)])
    registry.add_listener(Deny())
    registry.add_listener(Recorder("R", log))
    result = run(registry.execute(ToolCall("c1", "write", {"path": "p"})))
    assert (result.content, result.error) == ("Error: write is not allowed here", None)
    assert ran == []
    assert [entry[1] for entry in log] == ["tools/pre-execute", "post", "tools/post-execute"]


def test_post_execute_may_replace_the_result_or_turn_it_into_an_error() -> None:
    class Truncate:
        def post_execute(self, call: ToolCall, result: ToolExecutionResult) -> ToolExecutionResult:
            return ToolExecutionResult(
                call.id, call.name, result.content[:3], False, None, result.value
            )

    class Broken:
        async def post_execute(self, call: ToolCall, result: ToolExecutionResult) -> None:
            raise HarnessError("redaction failed")

    class Wrong:
        def post_execute(self, call: ToolCall, result: ToolExecutionResult) -> str:
            return "not a result"

    registry = ToolRegistry([define_tool("read", "", {}, lambda: "abcdef")])
    registry.add_listener(Truncate())
    result = run(registry.execute(ToolCall("c1", "read", "{}")))
    assert (result.content, result.value) == ("abc", "abcdef")

    registry.add_listener(Broken())
    result = run(registry.execute(ToolCall("c2", "read", "{}")))
    assert (result.content, result.error) == (
        "Error: redaction failed",
        {"name": "HarnessError", "code": "UNKNOWN"},
    )

    other = ToolRegistry([define_tool("read", "", {}, lambda: "abcdef")])
    other.add_listener(Wrong())
    result = run(other.execute(ToolCall("c3", "read", "{}")))
    assert (
        result.content == "Error: post_execute must return a ToolExecutionResult or None, not str"
    )


def test_a_raising_event_observer_becomes_the_error_result() -> None:
    class Loud:
        def on_event(self, event: LiveEvent) -> None:
            if event.type == "tools/execute":
                raise RuntimeError("observer broke")

    ran: list[int] = []
    registry = ToolRegistry([define_tool("t", "", {}, lambda: ran.append(1))])
    registry.add_listener(Loud())
    result = run(registry.execute(ToolCall("c1", "t", "{}")))
    assert (result.content, result.is_error, ran) == ("Error: observer broke", True, [])


def test_add_and_remove_listener() -> None:
    log: list[Any] = []
    registry = ToolRegistry([define_tool("t", "", {}, lambda: "x")])
    listener = Recorder("A", log)
    registry.add_listener(listener)
    registry.remove_listener(listener)
    run(registry.execute(ToolCall("c1", "t", "{}")))
    assert log == []
    with pytest.raises(ValueError):
        registry.remove_listener(listener)
    with pytest.raises(TypeError, match="pre_execute, post_execute, on_event"):
        registry.add_listener(object())


# -- what propagates -----------------------------------------------------------------------------


def test_keyboard_interrupt_propagates_from_a_tool_and_a_listener() -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    registry = ToolRegistry([define_tool("t", "", {}, interrupt)])
    with pytest.raises(KeyboardInterrupt):
        run(registry.execute(ToolCall("c1", "t", "{}")))

    class Stop:
        def pre_execute(self, call: ToolCall) -> None:
            raise KeyboardInterrupt

    calm = ToolRegistry([define_tool("t", "", {}, lambda: "x")])
    calm.add_listener(Stop())
    with pytest.raises(KeyboardInterrupt):
        run(calm.execute(ToolCall("c1", "t", "{}")))


def test_cancellation_propagates_out_of_execute() -> None:
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    registry = ToolRegistry([define_tool("t", "", {}, forever)])

    async def scenario() -> None:
        task = asyncio.ensure_future(registry.execute(ToolCall("c1", "t", "{}")))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    run(scenario())


def test_cancelled_error_raised_by_a_tool_is_not_turned_into_a_result() -> None:
    async def body() -> None:
        raise asyncio.CancelledError

    registry = ToolRegistry([define_tool("t", "", {}, body)])
    with pytest.raises(asyncio.CancelledError):
        run(registry.execute(ToolCall("c1", "t", "{}")))


def test_public_classes_report_the_facade_module() -> None:
    for cls in (Tool, ToolCall, ToolExecutionResult, ToolRegistry):
        assert cls.__module__ == "harness_conformance"


def test_the_guide_examples_run() -> None:
    assert all(hasattr(harness_conformance, name) for name in tools_module.__all__)
    guide = Path(__file__).resolve().parents[2] / "docs" / "tools.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 5
    for index, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/tools.md example {index}", "exec"), {"__name__": "guide"})


def _echo(x: int) -> int:
    return x


def test_a_tool_is_exclusive_unless_it_is_concurrency_safe() -> None:
    registry = ToolRegistry()
    plain = [
        define_tool("a", "", None, _echo),
        tools_module.tool(_echo),
        registry.register_raw("raw_a", "", {"type": "object"}, _echo),
        Tool("t_a", "", None, {}, _echo, raw=True),
    ]
    safe = [
        define_tool("b", "", None, _echo, concurrency_safe=True),
        tools_module.tool(concurrency_safe=True)(_echo),
        registry.register_raw("raw_b", "", {"type": "object"}, _echo, concurrency_safe=True),
        Tool("t_b", "", None, {}, _echo, raw=True, concurrency_safe=True),
    ]
    assert [t.concurrency_safe for t in plain] == [False] * 4
    assert [t.concurrency_safe for t in safe] == [True] * 4


@pytest.mark.parametrize("flag", [1, "yes", None])
def test_concurrency_safe_must_be_a_bool(flag: object) -> None:
    kind = type(flag).__name__
    message = f'tool "echo": concurrency_safe must be a bool, not {kind}'
    with pytest.raises(TypeError, match=message):
        define_tool("echo", "", None, _echo, concurrency_safe=flag)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=message):
        ToolRegistry().register_raw("echo", "", {}, _echo, concurrency_safe=flag)  # type: ignore[arg-type]

"""The error tree: codes, documentation, construction, `error_chain`, `error_info`."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest

from harness_conformance import errors
from harness_conformance.errors import (
    CODES,
    UNKNOWN_CODE,
    AbortError,
    CassetteError,
    HarnessError,
    InvariantError,
    LlmError,
    LlmFailure,
    SchemaError,
    SchemaProblem,
    ToolArgsError,
    ToolNotFoundError,
    ToolOutputError,
    error_chain,
    error_info,
    harness_error_of,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"

# The builtin each class also inherits, and how to build one instance of it.
EXPECTED: dict[type[HarnessError], tuple[type[Exception], Callable[[], HarnessError]]] = {
    HarnessError: (Exception, lambda: HarnessError("bare")),
    SchemaError: (ValueError, lambda: SchemaError("bad", problems=[SchemaProblem("#", "x")])),
    ToolArgsError: (ValueError, lambda: ToolArgsError(["x is required"], tool="t")),
    ToolNotFoundError: (LookupError, lambda: ToolNotFoundError("t")),
    ToolOutputError: (TypeError, lambda: ToolOutputError("not text")),
    AbortError: (Exception, lambda: AbortError("stop", code="ABORTED_BEFORE_DISPATCH")),
    LlmError: (RuntimeError, lambda: LlmError(LlmFailure("slow", "TIMEOUT", retry_after=2.0))),
    InvariantError: (AssertionError, lambda: InvariantError("gap", rule="seq", seq=3)),
    CassetteError: (RuntimeError, lambda: CassetteError("gone", code="CASSETTE_MISSING")),
}


def _module_classes() -> list[type[HarnessError]]:
    """HarnessError and its subclasses, recursively, keeping those the module defines."""
    found: list[type[HarnessError]] = []
    pending: list[type[HarnessError]] = [HarnessError]
    while pending:
        cls = pending.pop()
        if vars(errors).get(cls.__name__) is cls and cls not in found:
            found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


CLASSES = _module_classes()
CLASS_IDS = [cls.__name__ for cls in CLASSES]


def _doc_headings(name: str) -> list[tuple[int, str]]:
    """(level, text) of each Markdown heading, ignoring fenced code blocks."""
    headings: list[tuple[int, str]] = []
    in_code = False
    for line in (DOCS / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and (match := re.match(r"(#+)\s+(.*)", line)):
            headings.append((len(match[1]), match[2].strip()))
    return headings


# --- the tree --------------------------------------------------------------------------


def test_walk_finds_every_class_in_the_table() -> None:
    assert set(CLASSES) == set(EXPECTED)


def test_codes_are_unique_across_classes() -> None:
    every = [code for cls in CLASSES for code in cls.codes]
    assert len(every) == len(set(every))
    assert UNKNOWN_CODE in every
    assert {code: cls for cls in CLASSES for code in cls.codes} == CODES


@pytest.mark.parametrize("cls", CLASSES, ids=CLASS_IDS)
def test_class_contract(cls: type[HarnessError]) -> None:
    builtin, make = EXPECTED[cls]
    assert cls.codes
    assert cls.__name__ in errors.__all__
    assert cls.__module__ == "harness_conformance"
    assert issubclass(cls, builtin)
    instance = make()
    assert type(instance) is cls
    assert isinstance(instance, builtin)
    assert instance.code in cls.codes
    assert instance.name == cls.__name__
    assert str(instance) == instance.message


@pytest.mark.parametrize("cls", CLASSES, ids=CLASS_IDS)
def test_every_code_has_a_row_in_the_docs(cls: type[HarnessError]) -> None:
    text = (DOCS / "errors.md").read_text(encoding="utf-8")
    assert (2, cls.__name__) in _doc_headings("errors.md")
    for code in cls.codes:
        assert re.search(rf"^\| `{code}` \|", text, re.M), code


def test_chinese_docs_mirror_the_heading_structure_and_codes() -> None:
    english, chinese = _doc_headings("errors.md"), _doc_headings("errors.zh.md")
    assert len(english) >= len(CLASSES) + 2
    assert [level for level, _ in english] == [level for level, _ in chinese]
    names = {cls.__name__ for cls in CLASSES} | {UNKNOWN_CODE}
    assert [t for _, t in english if t in names] == [t for _, t in chinese if t in names]
    text = (DOCS / "errors.zh.md").read_text(encoding="utf-8")
    assert all(f"`{code}`" in text for code in CODES)


def test_all_lists_exactly_the_public_names() -> None:
    def own(module: object) -> bool:
        return module in ("harness_conformance", None) or str(module).startswith(errors.__name__)

    public = {
        name
        for name, value in vars(errors).items()
        if name.isidentifier()
        and not name.startswith("_")
        and own(getattr(value, "__module__", None))
    }
    assert len(errors.__all__) == len(set(errors.__all__))
    assert set(errors.__all__) == public


def test_dataclasses_report_the_facade_module() -> None:
    assert SchemaProblem.__module__ == "harness_conformance"
    assert LlmFailure.__module__ == "harness_conformance"


def test_subclass_with_empty_codes_is_rejected() -> None:
    with pytest.raises(TypeError, match="codes"):
        type("NoCodes", (HarnessError,), {"codes": ()})


@pytest.mark.parametrize("cls", CLASSES, ids=CLASS_IDS)
def test_copy_keeps_every_field(cls: type[HarnessError]) -> None:
    original = EXPECTED[cls][1]()
    clone = copy.deepcopy(original)
    assert type(clone) is cls
    assert vars(clone) == vars(original)
    assert str(clone) == str(original)
    assert clone.args == original.args


# --- construction ----------------------------------------------------------------------


def test_bare_harness_error_defaults_to_unknown() -> None:
    error = HarnessError("boom")
    assert error.code == UNKNOWN_CODE
    assert repr(error) == "HarnessError('boom', code='UNKNOWN')"


def test_code_outside_the_class_codes_raises_value_error() -> None:
    with pytest.raises(ValueError, match="INVALID_ARGS"):
        AbortError("stop", code="INVALID_ARGS")


def test_abort_error_defaults_to_its_first_code() -> None:
    assert AbortError("stop").code == "ABORTED"


def test_cause_is_the_chained_exception() -> None:
    inner = KeyError("k")
    with pytest.raises(ToolOutputError) as caught:
        raise ToolOutputError("bad output") from inner
    assert caught.value.cause is inner
    assert HarnessError("alone").cause is None


def test_schema_error_keeps_every_problem() -> None:
    problems = [SchemaProblem("#/properties/x", "unsupported keyword"), SchemaProblem("a.b", "y")]
    error = SchemaError("2 problems", problems=problems)
    assert error.problems == tuple(problems)
    assert error.code == "UNSUPPORTED_SCHEMA"
    assert str(problems[0]) == "#/properties/x: unsupported keyword"


def test_tool_args_error_joins_violations() -> None:
    error = ToolArgsError(["city is required", "days must be >= 1"], tool="weather")
    assert error.message == "invalid arguments: city is required; days must be >= 1"
    assert error.violations == ("city is required", "days must be >= 1")
    assert error.tool == "weather"
    assert error.code == "INVALID_ARGS"


def test_tool_args_error_rejects_a_bare_string() -> None:
    with pytest.raises(TypeError):
        ToolArgsError("city is required")


def test_tool_not_found_error_message() -> None:
    error = ToolNotFoundError("search")
    assert error.message == 'unknown tool "search"'
    assert error.tool == "search"
    assert error.code == "UNKNOWN_TOOL"


def test_llm_error_takes_message_and_code_from_the_failure() -> None:
    failure = LlmFailure("slow down", "RATE_LIMIT", status=429, retry_after=1.5, request_id="r1")
    error = LlmError(failure)
    assert (error.message, error.code, error.failure) == ("slow down", "RATE_LIMIT", failure)
    assert error.retryable


@pytest.mark.parametrize("code", LlmError.codes)
def test_llm_error_retryable_matches_the_table(code: str) -> None:
    expected = code in {"EMPTY_RESPONSE", "RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT"}
    assert LlmError(LlmFailure("x", code)).retryable is expected


def test_llm_error_rejects_an_unknown_failure_code() -> None:
    with pytest.raises(ValueError, match="NOPE"):
        LlmError(LlmFailure("x", "NOPE"))


def test_invariant_error_fields() -> None:
    error = InvariantError("seq 4 follows 2", rule="seq-contiguous", seq=4)
    assert (error.rule, error.seq, error.code) == ("seq-contiguous", 4, "INVARIANT")
    assert InvariantError("no seq", rule="status-transition", seq=None).seq is None


def test_cassette_error_requires_a_valid_code() -> None:
    error = CassetteError("no such file", code="CASSETTE_MISSING", path="c.yaml")
    assert (error.code, error.path) == ("CASSETTE_MISSING", "c.yaml")
    with pytest.raises(ValueError, match="CASSETTE_LOST"):
        CassetteError("no such file", code="CASSETTE_LOST")
    with pytest.raises(TypeError):
        CassetteError("no code")  # type: ignore[call-arg]


# --- error_chain -----------------------------------------------------------------------


def _raised(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        try:
            raise inner
        except BaseException:
            raise outer from inner
    except BaseException as exc:
        return exc


def test_chain_follows_explicit_causes_outer_first() -> None:
    middle = _raised(ToolOutputError("tool failed"), OSError("disk full"))
    outer = _raised(HarnessError("step 2 failed"), middle)
    assert error_chain(outer) == "step 2 failed: tool failed: disk full"


def _failed_lookup(*, suppress: bool) -> None:
    try:
        raise KeyError("missing")
    except KeyError:
        if suppress:
            raise RuntimeError("lookup failed") from None
        raise RuntimeError("lookup failed")  # noqa: B904 - the implicit context is the point


def test_chain_follows_implicit_context() -> None:
    with pytest.raises(RuntimeError) as caught:
        _failed_lookup(suppress=False)
    assert error_chain(caught.value) == "lookup failed: 'missing'"


def test_chain_stops_at_suppressed_context() -> None:
    with pytest.raises(RuntimeError) as caught:
        _failed_lookup(suppress=True)
    assert caught.value.__context__ is not None
    assert error_chain(caught.value) == "lookup failed"


def test_chain_skips_a_cause_that_repeats_the_previous_link() -> None:
    outer = _raised(LlmError(LlmFailure("timed out", "TIMEOUT")), TimeoutError("timed out"))
    assert error_chain(outer) == "timed out"
    deeper = _raised(ValueError("wrap"), outer)
    assert error_chain(deeper) == "wrap: timed out"


def test_chain_marks_a_cycle() -> None:
    first, second = ValueError("first"), ValueError("second")
    first.__cause__, second.__cause__ = second, first
    assert error_chain(first) == "first: second: <circular cause>"
    alone = ValueError("self")
    alone.__cause__ = alone
    assert error_chain(alone) == "self: <circular cause>"


class _BrokenStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


def test_chain_renders_a_broken_str_as_unrenderable() -> None:
    outer = _raised(HarnessError("outer"), _BrokenStr())
    assert error_chain(outer) == "outer: <unrenderable value>"


def test_chain_uses_the_type_name_for_an_empty_message() -> None:
    outer = _raised(HarnessError("outer"), LookupError())
    assert error_chain(outer) == "outer: LookupError"
    assert error_chain(ValueError()) == "ValueError"


class _BrokenCause(Exception):
    @property
    def __cause__(self) -> BaseException | None:  # type: ignore[override]
        raise RuntimeError("no cause for you")


@pytest.mark.parametrize(
    "odd",
    [None, 42, "text", object(), SimpleNamespace(message=1), _BrokenCause("broken cause")],
    ids=["none", "int", "str", "object", "namespace", "broken-cause"],
)
def test_chain_never_raises_on_odd_input(odd: object) -> None:
    rendered = error_chain(odd)
    assert isinstance(rendered, str)
    assert rendered


# --- error_info ------------------------------------------------------------------------


def test_info_for_a_harness_error() -> None:
    assert error_info(ToolNotFoundError("x")) == {
        "name": "ToolNotFoundError",
        "code": "UNKNOWN_TOOL",
    }


def test_info_for_other_exceptions_is_none() -> None:
    assert error_info(ValueError("x")) is None


def test_info_ignores_lookalikes() -> None:
    assert error_info(SimpleNamespace(name="ToolArgsError", code="INVALID_ARGS")) is None
    assert error_info(mock.Mock(spec=HarnessError, code="INVALID_ARGS")) is None


def test_info_never_raises_on_odd_input() -> None:
    error = HarnessError("x")
    del error.code
    assert error_info(error) is None
    assert error_info(None) is None


def test_a_lone_exception_in_a_group_is_rendered_and_found() -> None:
    inner = CassetteError("host example.invalid is blocked", code="NETWORK_BLOCKED")
    group = ExceptionGroup("unhandled errors in a TaskGroup", [inner])
    assert error_chain(group) == "host example.invalid is blocked"
    assert harness_error_of(group) is inner
    assert harness_error_of(ValueError("x")) is None
    two = ExceptionGroup("two", [inner, ValueError("y")])
    assert harness_error_of(two) is None
    assert error_chain(two).startswith("two")

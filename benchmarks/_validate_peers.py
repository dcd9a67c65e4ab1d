"""The validators ``validate.py`` times: how each is built and called.

Each `Peer` builds its validator once per schema (``build``), gives its verdict on a
value (``verdict``), and offers two ways to call it: ``loop(built)`` returns a function
``run(value, n)`` that times ``n`` calls in a tight loop, and ``once(built)`` returns a
one-argument function that makes a single call, for the sweep. The calls are written
alike for every peer so that the wrapping costs each the same.

The first-calls sweep has sides of its own (`first_call_sides`): ``validate_args`` on a
spec's compiled closures (the calls before ``GENERATE_AFTER``), jsonschema, ours on the
generated function, and `bare_walk`, which visits every node of the value and checks
nothing: the floor any validator pays.
"""

from __future__ import annotations

import inspect
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from typing import Any

from _corpus import Entry
from harness_conformance.schema import from_json_schema, validate_args
from harness_conformance.schema._caches import lookup
from harness_conformance.schema._validate import GENERATE_AFTER, validator

__all__ = [
    "BARE_WALK",
    "FIRST_CALLS",
    "GENERATED",
    "OURS",
    "Peer",
    "Run",
    "bare_walk",
    "first_call_sides",
    "make_peers",
    "rearm",
    "still_on_closures",
]

OURS = "ours validate_args"
FIRST_CALLS = "ours first calls (closures)"
GENERATED = "ours generated function"
BARE_WALK = "bare walk (checks nothing)"

Run = Callable[[Any, int], int]
"""``run(value, n)``: nanoseconds taken by ``n`` calls on ``value``."""


@dataclass
class Peer:
    """One validator, and what the benchmark found about it."""

    name: str
    note: str
    build: Callable[[Entry, Any], Any]
    verdict: Callable[[Any, Any], bool]
    loop: Callable[[Any], Run]
    once: Callable[[Any], Callable[[Any], Any]]
    skipped: int = 0
    errored: int = 0
    built: dict[str, Any] = field(default_factory=dict)
    """The built validator per schema id (the schemas this peer is timed on)."""
    disagree: dict[str, list[str]] = field(default_factory=lambda: {"valid": [], "invalid": []})


def _loop_ours(spec: Any) -> Run:
    def run(value: Any, n: int) -> int:
        check = validate_args
        start = time.perf_counter_ns()
        for _ in range(n):
            check(spec, value)
        return time.perf_counter_ns() - start

    return run


def _loop_iter_errors(validator: Any) -> Run:
    iter_errors = validator.iter_errors

    def run(value: Any, n: int) -> int:
        start = time.perf_counter_ns()
        for _ in range(n):
            list(iter_errors(value))
        return time.perf_counter_ns() - start

    return run


def _loop_raising(function_and_error: tuple[Callable[[Any], Any], type[Exception]]) -> Run:
    function, error = function_and_error

    def run(value: Any, n: int) -> int:
        start = time.perf_counter_ns()
        for _ in range(n):
            try:  # noqa: SIM105 - contextlib.suppress would add its own cost to every timed call
                function(value)
            except error:
                pass
        return time.perf_counter_ns() - start

    return run


def _once_ours(spec: Any) -> Callable[[Any], Any]:
    return partial(validate_args, spec)


def _once_iter_errors(validator: Any) -> Callable[[Any], Any]:
    iter_errors = validator.iter_errors

    def call(value: Any) -> Any:
        return list(iter_errors(value))

    return call


def _once_raising(
    function_and_error: tuple[Callable[[Any], Any], type[Exception]],
) -> Callable[[Any], Any]:
    function, error = function_and_error

    def call(value: Any) -> Any:
        try:
            return function(value)
        except error as caught:
            return caught

    return call


def _raising_verdict(built: tuple[Callable[[Any], Any], type[Exception]], value: Any) -> bool:
    function, error = built
    try:
        function(value)
    except error:
        return False
    return True


def _no_errors(validator: Any, value: Any) -> bool:
    return not any(True for _ in validator.iter_errors(value))


def bare_walk(value: Any) -> None:
    """Visit every node of a JSON value and check nothing: the work any validator does
    to reach each value it checks, on an explicit stack as the validators walk."""
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            push(item.values())
        elif kind is list:
            push(item)


def _fresh_spec(entry: Entry, spec: Any) -> Any:
    """A spec of its own for the first calls: imported again, its compiled closures and
    the validator of its first calls built (``validator``), no call made yet."""
    fresh = from_json_schema(entry.schema)
    validator(fresh)
    return fresh


def rearm(spec: Any) -> None:
    """Give ``spec`` the validator of a fresh spec's first calls again, outside the
    timing: its closures are kept, its count of calls before ``GENERATE_AFTER`` restarts."""
    found = lookup(spec)
    assert found is not None
    found.run = None
    validator(spec)


def still_on_closures(spec: Any) -> bool:
    """Whether every call on ``spec`` ran the closures: no generated function was built."""
    found = lookup(spec)
    return found is not None and found.hot is None and found.check is not None


CALLS_BEFORE_GENERATED = GENERATE_AFTER - 1
"""Calls a rearmed spec answers on its closures; the sweep rearms before each round."""


def first_call_sides(jsonschema_peer: Peer) -> list[Peer]:
    """The sides of the first-calls sweep: ours on the closures (a spec of its own per
    schema, rearmed before every round), jsonschema (the validator built for the main
    sweep), ours on the generated function (the spec the main sweep times) and
    `bare_walk`."""

    def never(built: Any) -> Run:
        raise AssertionError("the first-calls sweep has no tight loop")

    ours = Peer(
        FIRST_CALLS,
        "all errors",
        _fresh_spec,
        lambda spec, value: not validate_args(spec, value),
        never,
        _once_ours,
    )
    generated = Peer(
        GENERATED,
        "all errors",
        lambda entry, spec: spec,
        lambda spec, value: not validate_args(spec, value),
        never,
        _once_ours,
    )
    walk = Peer(
        BARE_WALK,
        "checks nothing",
        lambda entry, spec: bare_walk,
        lambda built, value: True,
        never,
        lambda built: built,
    )
    theirs = Peer(
        jsonschema_peer.name,
        jsonschema_peer.note,
        jsonschema_peer.build,
        jsonschema_peer.verdict,
        never,
        jsonschema_peer.once,
    )
    theirs.built = dict(jsonschema_peer.built)
    return [ours, theirs, generated, walk]


def make_peers() -> tuple[list[Peer], dict[str, str]]:
    """Our validator first, then every peer that is installed; and the versions used."""
    import fastjsonschema
    import jsonschema

    versions = {
        "python": platform.python_version(),
        "harness-conformance": _version("harness-conformance"),
        "jsonschema": _version("jsonschema"),
        "fastjsonschema": _version("fastjsonschema"),
    }
    draft = jsonschema.Draft202012Validator
    peers = [
        Peer(
            OURS,
            "all errors",
            lambda entry, spec: spec,
            lambda spec, value: not validate_args(spec, value),
            _loop_ours,
            _once_ours,
        ),
        Peer(
            "jsonschema iter_errors",
            "all errors",
            lambda entry, spec: draft(entry.schema),
            _no_errors,
            _loop_iter_errors,
            _once_iter_errors,
        ),
    ]
    fast_error = fastjsonschema.JsonSchemaException

    def fast_builder(**extra: Any) -> Callable[[Entry, Any], Any]:
        def build(entry: Entry, spec: Any) -> Any:
            compiled = fastjsonschema.compile(
                entry.schema, use_default=False, use_formats=False, **extra
            )
            return compiled, fast_error

        return build

    raising = (_raising_verdict, _loop_raising, _once_raising)
    peers.append(Peer("fastjsonschema", "first error only", fast_builder(), *raising))
    if "fast_fail" in inspect.signature(fastjsonschema.compile).parameters:
        name, every = "fastjsonschema fast_fail=False", fast_builder(fast_fail=False)
        peers.append(Peer(name, "all errors", every, *raising))
    try:
        import jsonschema_rs
    except ImportError:
        versions["jsonschema-rs"] = "not installed"
    else:
        versions["jsonschema-rs"] = _version("jsonschema-rs")
        rs_draft = jsonschema_rs.Draft202012Validator

        def rs_build(entry: Entry, spec: Any) -> Any:
            return rs_draft(entry.schema)

        peers.append(
            Peer(
                "jsonschema-rs iter_errors",
                "all errors",
                rs_build,
                _no_errors,
                _loop_iter_errors,
                _once_iter_errors,
            )
        )
    return peers, versions


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "source tree" if distribution == "harness-conformance" else "not installed"

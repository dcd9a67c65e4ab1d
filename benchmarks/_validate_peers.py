"""The validators ``validate.py`` times: how each is built and called.

Each `Peer` builds its validator once per schema (``build``), gives its verdict on a
value (``verdict``), and offers two ways to call it: ``loop(built)`` returns a function
``run(value, n)`` that times ``n`` calls in a tight loop, and ``once(built)`` returns a
one-argument function that makes a single call, for the sweep. The calls are written
alike for every peer so that the wrapping costs each the same.
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
from harness_conformance.schema import validate_args

__all__ = ["OURS", "Peer", "Run", "make_peers"]

OURS = "ours validate_args"

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

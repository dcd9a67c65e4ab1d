"""The pytest side of the standard suites: the collection check that keeps them whole.

Every collected subclass of a standard suite must keep every standard test. Overriding
one is allowed only to mark it as a known failure, with ``pytest.mark.xfail(reason=...)``
on the override; a deleted test (set to None, or removed from the suite), an override
without that mark, or marks put on the suite's own test add a failing item
``<class>::standard-suite-check`` that names each test and what to do. The suites
themselves are never collected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

__all__ = [
    "CHECK_NAME",
    "StandardSuiteCheck",
    "collect_class",
    "suite_problems",
]

CHECK_NAME = "standard-suite-check"
"""The name of the failing item a changed standard suite gets."""


class StandardSuiteError(Exception):
    """A standard suite was changed in a way the check refuses."""


class StandardSuiteCheck(pytest.Item):
    """A failing item listing how a subclass changed its standard suite."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def runtest(self) -> None:
        raise StandardSuiteError(self.message)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> Any:
        if isinstance(excinfo.value, StandardSuiteError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, self.nodeid


def _xfail_reason(function: Any) -> str | None:
    for mark in getattr(function, "pytestmark", ()):
        reason = mark.kwargs.get("reason") if getattr(mark, "name", None) == "xfail" else None
        if isinstance(reason, str) and reason.strip():
            return reason
    return None


def suite_problems(cls: type) -> list[str]:
    """How ``cls`` changed the standard tests it inherits, one line per test (``Suite.test:
    what``); ``[]`` when it kept them all."""
    from ..standard import STANDARD_TESTS

    problems: list[str] = []
    for base, tests in STANDARD_TESTS.items():
        if not issubclass(cls, base):
            continue
        for name, original in tests.items():
            current = getattr(cls, name, None)
            if current is original:
                if getattr(original, "pytestmark", None):
                    what = "marked in the suite itself, which changes it for every subclass"
                else:
                    continue
            elif not callable(current):
                what = "deleted"
            elif _xfail_reason(current) is None:
                what = "overridden without pytest.mark.xfail(reason=...)"
            else:
                continue
            problems.append(f"{base.__name__}.{name}: {what}")
    return problems


def _message(cls: type, problems: Sequence[str]) -> str:
    lines = [f"{cls.__name__} changes standard tests it inherits:"]
    lines += [f"  {problem}" for problem in problems]
    lines += [
        "Standard tests run as the suite defines them. Restore a deleted test; to record a",
        "known failure, override the test in the subclass and mark the override",
        '@pytest.mark.xfail(reason="why it fails").',
    ]
    return "\n".join(lines)


def collect_class(collector: pytest.Collector, name: str, obj: type, result: Any) -> Any:
    """The plugin's ``pytest_pycollect_makeitem`` result for class ``obj``: the suites
    themselves are dropped, and a changed subclass also gets a `StandardSuiteCheck`."""
    from ..standard import STANDARD_TESTS

    if obj in STANDARD_TESTS:
        return None
    if result is None or not any(issubclass(obj, base) for base in STANDARD_TESTS):
        return result
    problems = suite_problems(obj)
    if not problems:
        return result
    nodes = list(result) if isinstance(result, list) else [result]
    parent = next((node for node in nodes if isinstance(node, pytest.Class)), collector)
    message = _message(obj, problems)
    check = StandardSuiteCheck.from_parent(parent, name=CHECK_NAME, message=message)
    return [*nodes, check]

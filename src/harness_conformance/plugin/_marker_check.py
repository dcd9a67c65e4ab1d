"""Checked replay: what a marker-only cassette test gets after its body passed.

A test marked ``hc_cassette`` that drives its own loop (the openai SDK, an agent
framework) bypasses `replay_session`, so the plugin sees neither its events nor its tool
calls. With checked replay on (``hc_cassette(checked=True)``, else the
``hc_checked_replay`` ini key; off by default), after such a test's body passes in
replay the cassette goes through `harness_conformance.cassettes.replay_foreign`, as the
``replay`` command reads it, under the test's invariant profile:

- an invariant violation of a rebuilt session fails the test with `InvariantError`;
- a recorded tool call whose arguments break their recorded schema, and one whose
  schema does not import, are the model's mistakes: they are listed in the test's report
  (section ``harness-conformance tool calls``) and fail the test with `ToolArgsError`
  when asked (``hc_cassette(fail_on_invalid_args=True)``, else
  ``--hc-fail-on-invalid-args``, else the ``hc_fail_on_invalid_args`` ini key);
- a cassette with no model traffic (no request at all) has nothing to check, and one
  in a wire format the checker does not read is noted in the report; either way the
  test stands as its body left it.

Tests that use ``hc_model`` or ``replay_session`` are checked live by the loop instead,
and ``hc_invariants("off", reason=...)`` turns the check off.
"""

from __future__ import annotations

import pytest

from ..errors import CassetteError, HarnessError, InvariantError, ToolArgsError
from ._settings import cassette_marker, invariant_profile

__all__ = [
    "SECTION",
    "check_marker_replay",
    "checked_replay",
    "fail_on_invalid_args",
    "marker_only",
]

SECTION = "harness-conformance tool calls"
"""The report section that lists the tool calls the check found wrong or unchecked."""

_LIVE_FIXTURES = frozenset({"hc_model", "replay_session"})
_SHOWN = 5


def marker_only(item: pytest.Item) -> bool:
    """Whether ``item`` drives its own loop: it uses neither ``hc_model`` nor
    ``replay_session``."""
    return not _LIVE_FIXTURES & set(getattr(item, "fixturenames", ()))


def _marker_flag(item: pytest.Item, keyword: str) -> bool | None:
    """``hc_cassette(<keyword>=...)``, a bool, or None when the marker does not say."""
    marker = cassette_marker(item)
    if marker is None or keyword not in marker.kwargs:
        return None
    value = marker.kwargs[keyword]
    if not isinstance(value, bool):
        raise pytest.UsageError(
            f"{item.nodeid}: hc_cassette({keyword}=...) takes True or False, not {value!r}"
        )
    return value


def checked_replay(item: pytest.Item) -> bool:
    """``hc_cassette(checked=...)``, else the ``hc_checked_replay`` ini key."""
    given = _marker_flag(item, "checked")
    return bool(item.config.getini("hc_checked_replay")) if given is None else given


def fail_on_invalid_args(item: pytest.Item) -> bool:
    """``hc_cassette(fail_on_invalid_args=...)``, else ``--hc-fail-on-invalid-args``,
    else the ``hc_fail_on_invalid_args`` ini key."""
    given = _marker_flag(item, "fail_on_invalid_args")
    if given is not None:
        return given
    if item.config.getoption("hc_fail_on_invalid_args", default=None):
        return True
    return bool(item.config.getini("hc_fail_on_invalid_args"))


def _listed(lines: list[str]) -> str:
    more = f"; and {len(lines) - _SHOWN} more" if len(lines) > _SHOWN else ""
    return "; ".join(lines[:_SHOWN]) + more


def check_marker_replay(item: pytest.Item, path: str) -> HarnessError | None:
    """The error a marker-only test that replayed ``path`` ends with, or None (see the
    module docstring)."""
    from ..cassettes import replay_foreign

    profile = invariant_profile(item)
    if profile == "off":
        return None
    try:
        replay = replay_foreign(path, profile=profile)
    except CassetteError as exc:
        if exc.code in ("CASSETTE_EMPTY", "CASSETTE_MISSING"):
            return None  # the test made no request: no model traffic to check
        if exc.code != "CASSETTE_UNKNOWN_FORMAT":
            raise
        item.add_report_section("call", SECTION, f"not checked: {exc}")
        return None
    violations = replay.violations
    if violations:
        first = violations[0]
        return InvariantError(
            f"{path}: replayed through the loop, the recorded sessions break "
            f"{len(violations)} invariant(s): {_listed([str(v) for v in violations])}",
            rule=first.rule,
            seq=first.seq,
        )
    wrong = [
        f"interaction {call.interaction}, {call.tool} {call.arguments}: " + "; ".join(call.messages)
        for call in replay.invalid_tool_calls
    ]
    unchecked = [
        f"interaction {call.interaction}, {call.tool} {call.arguments}: not checked, "
        f"its schema does not import ({call.reason})"
        for call in replay.unchecked_tool_calls
    ]
    if not wrong and not unchecked:
        return None
    item.add_report_section("call", SECTION, "\n".join([*wrong, *unchecked]))
    if not fail_on_invalid_args(item):
        return None
    first_tool = (replay.invalid_tool_calls or replay.unchecked_tool_calls)[0].tool
    return ToolArgsError(
        [f"{path}: {len(wrong) + len(unchecked)} recorded tool call(s) "
         f"(--hc-fail-on-invalid-args): {_listed([*wrong, *unchecked])}"],
        tool=first_tool,
    )  # fmt: skip

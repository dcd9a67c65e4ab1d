"""The pytest hooks harness-conformance adds; implement them in a ``conftest.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy
import pytest

if TYPE_CHECKING:
    from ..tools import ToolExecutionResult

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_hc_normalize_tool_result(
    result: ToolExecutionResult, item: pytest.Item
) -> ToolExecutionResult | None:
    """Return ``result`` with run-to-run noise (timestamps, temporary paths) replaced,
    before the ``replay_session`` fixture reports and snapshots it; ``None`` keeps it.
    """


@hookspec
def pytest_hc_configure_vcr(vcr: Any, item: pytest.Item) -> None:
    """Adjust the vcrpy ``VCR`` a test's cassette is opened with (extra matchers,
    ignored hosts). Scrubbing, the header allow-list and the offline guard are applied
    after this hook and cannot be turned off here."""

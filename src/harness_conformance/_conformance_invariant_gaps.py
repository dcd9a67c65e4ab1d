"""The invariant vector cases this library knowingly disagrees with, and why.

Each case here ports a check of the reference implementation's invariant companions
that no rule of this checker makes; the reasons cite the RFC that records the decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._conformance_invariants import InvariantCase

__all__ = ["REFERENCE_ONLY_CASES", "reference_only_check"]

_RFC = "docs/rfc/implemented/testing/2026-12-01-reference-invariant-companions.md"

_ENCLOSURE = (
    "the reference requires request/context, request/header, todo/write and code-dispatch "
    "records to sit inside a turn; this checker reads them as plugin events, which only "
    f"the seq rules judge ({_RFC}, 'Turn enclosure of log-only events')"
)
_OPEN_AT_FINISH = (
    "the reference refuses a stop, tool-calls or max-tokens finish while a block is "
    "open; stream-grammar lets a block stay open until finish, as the reference's own "
    f"max-tokens-continue log does ({_RFC}, 'Blocks open at finish')"
)

REFERENCE_ONLY_CASES: Mapping[str, str] = MappingProxyType(
    {
        "upstream-session/request-context-outside-any-turn": _ENCLOSURE,
        "upstream-tools/a-code-dispatch-start-outside-any-turn": _ENCLOSURE,
        "upstream-tools/a-logged-code-dispatch-start-outside-any-turn": _ENCLOSURE,
        "upstream-llm-stream/a-stop-finish-with-a-block-still-open": _OPEN_AT_FINISH,
    }
)
"""Case id to the reason this library's checker reports differently."""


def reference_only_check(case: InvariantCase) -> str | None:
    """The reason a case checks something only the reference implementation checks, or
    ``None`` for any other case."""
    return REFERENCE_ONLY_CASES.get(case.id)

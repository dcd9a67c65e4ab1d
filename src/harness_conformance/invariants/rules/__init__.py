"""The invariant rules, one module each, in the order DESIGN §7 lists them.

Every module defines ``RULE_ID``, ``STATEMENT`` (one line), ``STRICT_ONLY`` and a
``Rule`` class built from a shared `Scope`, whose ``handlers()`` maps event types to
checks.
"""

from __future__ import annotations

import typing

from . import (
    chunk_in_step,
    error_has_code,
    event_names_open_scope,
    seq_contiguous,
    seq_increasing,
    status_transition,
    step_in_turn,
    stream_grammar,
    tool_result_after_call,
    turn_closes_steps,
    turn_numbering,
    turn_pairing,
)
from ._scope import SEQ_GAP, Check, Handlers, Scope

if typing.TYPE_CHECKING:
    from types import ModuleType

__all__ = ["ALL_RULES", "SEQ_GAP", "Check", "Handlers", "Scope"]

ALL_RULES: tuple[ModuleType, ...] = (
    seq_increasing,
    seq_contiguous,
    chunk_in_step,
    turn_pairing,
    step_in_turn,
    turn_closes_steps,
    turn_numbering,
    event_names_open_scope,
    tool_result_after_call,
    stream_grammar,
    status_transition,
    error_has_code,
)
"""Every rule module."""

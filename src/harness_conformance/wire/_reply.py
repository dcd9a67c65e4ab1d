"""How a reply ends, the same in every wire format that reads whole responses.

Once a reader has checked its own stop reasons (filters, refusals, cut streams), the
end of the reply follows one rule: a reply cut by the token limit finishes
``max-tokens``; a reply that produced no block and no server-side tool call is
EMPTY_RESPONSE; otherwise it finishes ``tool-calls`` when it made client tool calls
and ``stop`` when it did not. The open blocks end first, then the usage (when the
provider sent any), then the finish.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import LlmError
from ..events import Chunk, FinishChunk, UsageChunk

__all__ = ["close_reply"]


def close_reply(
    ends: Sequence[Chunk],
    *,
    produced: bool,
    calls: bool,
    cut: bool,
    usage: Mapping[str, Any] | None,
    fail: Callable[[str, str], LlmError],
) -> list[Chunk]:
    """The closing chunks: ``ends`` (the block-ends of the blocks still open), the usage
    and the finish; ``fail(code, message)`` builds the error for an empty reply."""
    if cut:
        kind = "max-tokens"
    elif not produced:
        raise fail("EMPTY_RESPONSE", "the model finished without text, reasoning or tool calls")
    else:
        kind = "tool-calls" if calls else "stop"
    out = list(ends)
    if usage is not None:
        out.append(UsageChunk(usage=dict(usage)))
    out.append(FinishChunk(reason={"kind": kind}))
    return out

"""What every format's reader says about a payload it cannot read.

`shown` quotes a provider value in a message, cut to a readable length; `malformed`
is the MALFORMED_RESPONSE error a reader raises for an event or body of the wrong
shape. The format packages share them.
"""

from __future__ import annotations

from ..errors import LlmError, LlmFailure
from ._http_failures import request_id_of

__all__ = ["malformed", "shown"]

_SHOWN = 200


def shown(value: object) -> str:
    """``value`` as text for a message, cut at 200 characters."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def malformed(what: str, request_id: str | None) -> LlmError:
    """MALFORMED_RESPONSE: the provider sent ``what``, which cannot be read."""
    return LlmError(
        LlmFailure(
            message=f"the provider sent a payload that cannot be read: {what}",
            code="MALFORMED_RESPONSE",
            request_id=request_id_of(request_id),
        )
    )

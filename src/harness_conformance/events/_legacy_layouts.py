"""Older layouts of the reference implementation's session logs, and how they read today.

The reference harness (deepseek-harness) changed what its log lines hold while keeping
format version 0, and its format migration reads the older forms as the current ones.
This module states the same reading as facts about a line, so the event model can fill a
field the line left out (and leave it out again on write) and consumers can find facts
that moved:

- ``user/message`` without ``role`` (it once held only ``content`` and ``source``, and
  still does when a host writes it so): the role is ``user``;
- ``assistant/message`` with ``content`` and ``provenance`` but no ``message``: the
  message is ``{"role": "assistant", "content", "source": {**provenance, "kind": "model"}}``;
- ``tool/result`` with ``callId``, ``content`` and ``isError`` but no ``message``: the
  message is a user message with one ``tool-result`` block and a ``tool`` source;
- ``turn/end`` error reasons: the failure sits in ``reason.error`` now, in
  ``reason.failure`` before that, and first as ``reason.message`` beside an optional
  ``reason.code`` (read as ``UNKNOWN`` when absent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["absent_defaults", "turn_end_failure"]


def absent_defaults(event_type: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The value of each modelled ``data`` key that ``data`` lacks and an older layout of
    ``event_type`` lets it lack, keyed by the on-disk (camelCase) key. Keys whose value
    cannot be told from ``data`` are not in the result (the line is then malformed)."""
    if event_type == "user/message" and "role" not in data:
        return {"role": "user"}
    if event_type == "assistant/message" and "message" not in data:
        message = _assistant_message(data)
        return {} if message is None else {"message": message}
    if event_type == "tool/result" and "message" not in data:
        message = _tool_result_message(data)
        return {} if message is None else {"message": message}
    return {}


def _assistant_message(data: Mapping[str, Any]) -> dict[str, Any] | None:
    content = data.get("content")
    if not isinstance(content, list):
        return None
    provenance = data.get("provenance")
    source = {**provenance, "kind": "model"} if isinstance(provenance, dict) else {"kind": "model"}
    return {"role": "assistant", "content": content, "source": source}


def _tool_result_message(data: Mapping[str, Any]) -> dict[str, Any] | None:
    call_id, content, is_error = data.get("callId"), data.get("content"), data.get("isError")
    if not isinstance(call_id, str) or not isinstance(content, list):
        return None
    block: dict[str, Any] = {"type": "tool-result", "toolCallId": call_id, "content": content}
    if isinstance(is_error, bool):
        block["isError"] = is_error
    return {"role": "user", "content": [block], "source": {"kind": "tool", "callId": call_id}}


def turn_end_failure(reason: Mapping[str, Any]) -> dict[str, Any] | None:
    """The failure facts (``message``, ``code``, ...) of a ``turn/end`` error reason in any
    of its layouts; None for another kind, or an error reason that holds no failure."""
    if reason.get("kind") != "error":
        return None
    for key in ("error", "failure"):
        if key in reason:
            found = reason[key]
            return dict(found) if isinstance(found, dict) else None
    message = reason.get("message")
    if not isinstance(message, str):
        return None
    code = reason.get("code")
    return {"message": message, "code": code if isinstance(code, str) else "UNKNOWN"}

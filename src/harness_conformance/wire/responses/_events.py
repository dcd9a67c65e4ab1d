"""A non-streamed OpenAI Responses body as the events a stream of it would carry.

`events_of_body` turns ``{"object": "response", "output": [...], "status", "usage",
"incomplete_details", "error"}`` into ``response.created``, then for each output item
``response.output_item.added``, the deltas of its content (text and refusal parts of
a message, summary and ``reasoning_text`` parts of a reasoning item, the arguments of
a function call) and ``response.output_item.done``, then the end event its
``status`` names: ``response.completed`` (also for a body without a status),
``response.incomplete`` or ``response.failed``. A body still ``queued`` or
``in_progress``, or ``cancelled``, gets no end event, so the reader reports it as cut
off. A 200 body that is only ``{"error": ...}`` becomes an ``error`` event. Anything
else is not a Responses body: MALFORMED_RESPONSE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._payloads import malformed, shown

__all__ = ["events_of_body"]

_ENDS = {
    None: "response.completed",
    "completed": "response.completed",
    "incomplete": "response.incomplete",
    "failed": "response.failed",
}


def _deltas(item: Mapping[str, Any], index: int) -> list[dict[str, Any]]:
    kind = item.get("type")
    item_id = item.get("id")
    where = {"item_id": item_id, "output_index": index}
    out: list[dict[str, Any]] = []
    if kind == "function_call":
        arguments = item.get("arguments")
        if isinstance(arguments, str) and arguments:
            out.append(
                {"type": "response.function_call_arguments.delta", **where, "delta": arguments}
            )
        return out
    if kind == "message":
        parts = [("content", "content_index", item.get("content"))]
    elif kind == "reasoning":
        parts = [
            ("summary", "summary_index", item.get("summary")),
            ("content", "content_index", item.get("content")),
        ]
    else:
        return out
    for field_name, index_key, listed in parts:
        for number, part in enumerate(listed if isinstance(listed, list) else []):
            if not isinstance(part, Mapping):
                continue
            part_type = part.get("type")
            if field_name == "summary":
                event, text = "response.reasoning_summary_text.delta", part.get("text")
            elif kind == "reasoning":
                event, text = "response.reasoning_text.delta", part.get("text")
            elif part_type == "refusal":
                event, text = "response.refusal.delta", part.get("refusal")
            else:
                event, text = "response.output_text.delta", part.get("text")
            if isinstance(text, str) and text:
                out.append({"type": event, **where, index_key: number, "delta": text})
    return out


def events_of_body(body: object, *, request_id: str | None) -> list[object]:
    """The events a stream of this non-streamed body would carry (see the module doc)."""
    if not isinstance(body, Mapping):
        raise malformed(f"a body that is not a Responses response: {shown(body)}", request_id)
    output = body.get("output")
    if body.get("object") != "response" and not isinstance(output, list):
        if body.get("error") and "output" not in body:
            return [{"type": "error", "error": body["error"]}]
        raise malformed(f"a body that is not a Responses response: {shown(body)}", request_id)
    if output is not None and not isinstance(output, list):
        raise malformed(f"response output that is not a list: {shown(output)}", request_id)
    head = {key: body[key] for key in ("id", "object", "status") if key in body}
    events: list[object] = [{"type": "response.created", "response": head}]
    for index, item in enumerate(output or []):
        if not isinstance(item, Mapping):
            raise malformed(f"an output item that is not an object: {shown(item)}", request_id)
        added = dict(item)
        if item.get("type") == "function_call":
            added["arguments"] = ""
        elif item.get("type") in ("message", "reasoning"):
            added.update({k: [] for k in ("content", "summary") if k in item})
        events.append({"type": "response.output_item.added", "output_index": index, "item": added})
        events.extend(_deltas(item, index))
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    status = body.get("status")
    end = _ENDS.get(status) if isinstance(status, str) or status is None else None
    if end is None and status not in ("queued", "in_progress", "cancelled"):
        end = "response.completed"
    if end is not None:
        events.append({"type": end, "response": body})
    return events

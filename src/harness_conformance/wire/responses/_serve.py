"""Script entries as OpenAI Responses wire payloads (``POST /v1/responses``).

A streamed answer is the event sequence the Responses API sends, each event an SSE
``event: <type>`` line and a ``data:`` line whose JSON repeats the ``type`` and carries
a ``sequence_number`` counting from 0; no ``[DONE]`` follows:

- ``response.created`` and ``response.in_progress``, with the response so far (status
  ``in_progress``, no output, no usage);
- the reasoning (`TextResponse.reasoning`) first, as a ``reasoning`` item whose one
  summary part streams as ``response.reasoning_summary_text.delta`` events, between
  ``response.reasoning_summary_part.added`` and ``.done``;
- the text, as a ``message`` item whose one ``output_text`` part streams as
  ``response.output_text.delta`` events, between ``response.content_part.added`` and
  ``.done``;
- each tool call as a ``function_call`` item: ``response.output_item.added`` with
  ``"arguments": ""``, the argument text split over
  ``response.function_call_arguments.delta`` events, then
  ``response.function_call_arguments.done`` and ``response.output_item.done`` with the
  whole arguments (with ``interleave``, every call is added first and the calls'
  deltas alternate);
- the end event with the whole response: ``response.completed``, or
  ``response.incomplete`` with ``incomplete_details.reason`` ``max_output_tokens`` for
  the ``length`` finish (``content_filter`` for ``content_filter``). A finish of None
  sends no end event, so the stream is cut off.

Each item goes ``response.output_item.added`` (status ``in_progress``, empty content),
its deltas, the part's ``.done`` events, ``response.output_item.done`` (status
``completed``). A non-streamed answer is the end event's response object. The usage is
the script's chat-completions usage in Responses keys (`responses_usage`). Error
bodies are the format's own error body for the status (`WireFormat.error_answer` of
``openai-responses``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._script import ErrorResponse, HangResponse, RecordedRequest, TextResponse, ToolCallsResponse
from .._serving import KEEP_ALIVE, ErrorAnswers, Reply, encode_json, error_body, pieces

__all__ = ["ResponsesWriter", "responses_usage"]

_ENDS = {
    "length": ("incomplete", "max_output_tokens"),
    "content_filter": ("incomplete", "content_filter"),
}


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def responses_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """A chat-completions usage object in Responses keys: ``prompt_tokens`` is
    ``input_tokens`` (its cached part, ``prompt_tokens_details.cached_tokens`` or
    DeepSeek's ``prompt_cache_hit_tokens``, is ``input_tokens_details.cached_tokens``, and
    ``prompt_tokens_details.cache_write_tokens``, else 0, its ``cache_write_tokens``),
    ``completion_tokens`` is ``output_tokens`` (``completion_tokens_details.
    reasoning_tokens`` is ``output_tokens_details.reasoning_tokens``). A usage already in
    Responses keys (``input_tokens`` or ``output_tokens``) is sent as given."""
    if "input_tokens" in usage or "output_tokens" in usage:
        return dict(usage)
    prompt = usage.get("prompt_tokens_details")
    completion = usage.get("completion_tokens_details")
    cached = prompt.get("cached_tokens") if isinstance(prompt, Mapping) else None
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")
    written = prompt.get("cache_write_tokens") if isinstance(prompt, Mapping) else None
    reasoning = completion.get("reasoning_tokens") if isinstance(completion, Mapping) else None
    given, made = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    total = usage.get("total_tokens")
    return {
        "input_tokens": given,
        "input_tokens_details": {
            "cache_write_tokens": _count(written),
            "cached_tokens": _count(cached),
        },
        "output_tokens": made,
        "output_tokens_details": {"reasoning_tokens": _count(reasoning)},
        "total_tokens": total if _count(total) else given + made,
    }


class _Events:
    """The events of one answer, numbered as they are added."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, **fields, "sequence_number": len(self.events)})


class _Answer:
    """One entry's output items and events, for one reply."""

    def __init__(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> None:
        self.entry = entry
        self.reply = reply
        self.prefix = f"loopback_{reply.number}"
        self.output: list[dict[str, Any]] = []
        self.stream = _Events()
        body = reply.request.body
        self.asked: Mapping[str, Any] = body if isinstance(body, Mapping) else {}

    # -- the response object --------------------------------------------------------

    def response(self, status: str, reason: str | None, *, final: bool) -> dict[str, Any]:
        asked = self.asked
        usage = self.entry.usage
        return {
            "id": f"resp_{self.prefix}",
            "object": "response",
            "created_at": self.reply.created,
            "status": status,
            "background": False,
            "completed_at": self.reply.created if status == "completed" else None,
            "error": None,
            "incomplete_details": None if reason is None else {"reason": reason},
            "instructions": asked.get("instructions"),
            "max_output_tokens": asked.get("max_output_tokens"),
            "metadata": asked.get("metadata") or {},
            "model": self.reply.model,
            "output": [dict(item) for item in self.output] if final else [],
            "parallel_tool_calls": asked.get("parallel_tool_calls", True),
            "previous_response_id": asked.get("previous_response_id"),
            "reasoning": {"effort": None, "summary": None},
            "store": asked.get("store", True),
            "temperature": asked.get("temperature", 1.0),
            "text": {"format": {"type": "text"}},
            "tool_choice": asked.get("tool_choice", "auto"),
            "tools": asked.get("tools") or [],
            "top_p": asked.get("top_p", 1.0),
            "truncation": "disabled",
            "usage": responses_usage(usage) if final and usage is not None else None,
            "user": None,
        }

    def end(self) -> tuple[str, str | None] | None:
        """The final status and incomplete reason; None when the stream is cut off."""
        finish = self.entry.finish_reason
        if finish is None:
            return None
        return _ENDS.get(finish, ("completed", None))

    # -- items ----------------------------------------------------------------------

    def _item_id(self, kind: str) -> str:
        return f"{kind}_{self.prefix}_{len(self.output)}"

    def reasoning(self, text: str, piece: int) -> None:
        index, item_id = len(self.output), self._item_id("rs")
        where = {"item_id": item_id, "output_index": index, "summary_index": 0}
        add = self.stream.add
        add("response.output_item.added", output_index=index, item=self._reasoning(item_id, None))
        add("response.reasoning_summary_part.added", **where, part=_summary(""))
        for delta in pieces(text, piece):
            add("response.reasoning_summary_text.delta", **where, delta=delta)
        add("response.reasoning_summary_text.done", **where, text=text)
        add("response.reasoning_summary_part.done", **where, part=_summary(text))
        item = self._reasoning(item_id, text)
        add("response.output_item.done", output_index=index, item=item)
        self.output.append(item)

    @staticmethod
    def _reasoning(item_id: str, text: str | None) -> dict[str, Any]:
        summary = [] if text is None else [_summary(text)]
        return {"id": item_id, "type": "reasoning", "summary": summary}

    def message(self, text: str, piece: int) -> None:
        index, item_id = len(self.output), self._item_id("msg")
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        add = self.stream.add
        add("response.output_item.added", output_index=index, item=_message(item_id, None))
        add("response.content_part.added", **where, part=_output_text(""))
        for delta in pieces(text, piece):
            add("response.output_text.delta", **where, delta=delta, logprobs=[])
        add("response.output_text.done", **where, text=text, logprobs=[])
        add("response.content_part.done", **where, part=_output_text(text))
        item = _message(item_id, text)
        add("response.output_item.done", output_index=index, item=item)
        self.output.append(item)

    def calls(self, calls: Sequence[tuple[str, str, str]], split: int, interleave: bool) -> None:
        add = self.stream.add
        made: list[tuple[int, str, str, str, list[str]]] = []
        for call_id, name, arguments in calls:
            index, item_id = len(self.output), self._item_id("fc")
            self.output.append(_call(item_id, call_id, name, arguments, "completed"))
            made.append((index, item_id, call_id, name, pieces(arguments, split)))
        # One call after another, or (interleaved) every call opened before any delta.
        for group in [made] if interleave else [[call] for call in made]:
            for index, item_id, call_id, name, _deltas in group:
                item = _call(item_id, call_id, name, "", "in_progress")
                add("response.output_item.added", output_index=index, item=item)
            for position in range(max((len(call[4]) for call in group), default=0)):
                for index, item_id, _call_id, _name, deltas in group:
                    if position < len(deltas):
                        add(
                            "response.function_call_arguments.delta",
                            item_id=item_id,
                            output_index=index,
                            delta=deltas[position],
                        )
            for index, item_id, _call_id, _name, _deltas in group:
                add(
                    "response.function_call_arguments.done",
                    item_id=item_id,
                    output_index=index,
                    arguments=self.output[index]["arguments"],
                )
                add("response.output_item.done", output_index=index, item=self.output[index])

    # -- the whole answer ------------------------------------------------------------

    def build(self) -> None:
        entry = self.entry
        add = self.stream.add
        add("response.created", response=self.response("in_progress", None, final=False))
        add("response.in_progress", response=self.response("in_progress", None, final=False))
        if isinstance(entry, TextResponse):
            if entry.reasoning is not None:
                self.reasoning(entry.reasoning, entry.piece)
            self.message(entry.text, entry.piece)
        else:
            if entry.text:
                self.message(entry.text, entry.split)
            self.calls(entry.calls, entry.split, entry.interleave)
        end = self.end()
        if end is None:
            return
        status, reason = end
        # The last item is the one the limit cut short; its done event holds the same
        # dict, so it ends incomplete there too.
        if status == "incomplete" and self.output and "status" in self.output[-1]:
            self.output[-1]["status"] = "incomplete"
        add(f"response.{status}", response=self.response(status, reason, final=True))

    def body(self) -> dict[str, Any]:
        """The response object a non-streamed request gets (after `build`)."""
        end = self.end()
        status, reason = end if end is not None else ("in_progress", None)
        return self.response(status, reason, final=True)


def _summary(text: str) -> dict[str, Any]:
    return {"type": "summary_text", "text": text}


def _output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def _message(item_id: str, text: str | None) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "message",
        "status": "in_progress" if text is None else "completed",
        "content": [] if text is None else [_output_text(text)],
        "role": "assistant",
    }


def _call(item_id: str, call_id: str, name: str, arguments: str, status: str) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "function_call",
        "status": status,
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


def _frames(events: Sequence[dict[str, Any]], *, keep_alive: bool) -> list[bytes]:
    frames: list[bytes] = []
    for event in events:
        if keep_alive:
            frames.append(KEEP_ALIVE)
        head = b"event: " + str(event["type"]).encode("utf-8") + b"\n"
        frames.append(head + b"data: " + encode_json(event) + b"\n\n")
    return frames


class ResponsesWriter:
    """The OpenAI Responses format as the loopback server writes it."""

    """The ``openai-responses`` `FormatWriter` (see the module doc)."""

    name = "openai-responses"

    def __init__(self, answers: ErrorAnswers) -> None:
        self._answers = answers

    def streamed(self, request: RecordedRequest) -> bool:
        return request.streamed

    def model_of(self, request: RecordedRequest) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        model = body.get("model")
        return model if isinstance(model, str) and model else None

    def stream_frames(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> list[bytes]:
        answer = _Answer(entry, reply)
        answer.build()
        return _frames(answer.stream.events, keep_alive=entry.keep_alive)

    def body(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> dict[str, Any]:
        answer = _Answer(entry, reply)
        answer.build()
        return answer.body()

    def hang_frames(self, entry: HangResponse, reply: Reply) -> list[bytes]:
        """The events a hanging answer sends before it stalls: the response's start and
        ``entry.text`` as text deltas of a message that never ends."""
        answer = _Answer(TextResponse(entry.text, finish_reason=None, usage=None), reply)
        add = answer.stream.add
        add("response.created", response=answer.response("in_progress", None, final=False))
        add("response.in_progress", response=answer.response("in_progress", None, final=False))
        if entry.text:
            item_id = f"msg_{answer.prefix}_0"
            where = {"item_id": item_id, "output_index": 0, "content_index": 0}
            add("response.output_item.added", output_index=0, item=_message(item_id, None))
            add("response.content_part.added", **where, part=_output_text(""))
            for delta in pieces(entry.text, entry.piece):
                add("response.output_text.delta", **where, delta=delta, logprobs=[])
        return _frames(answer.stream.events, keep_alive=False)

    def error_body(self, entry: ErrorResponse) -> tuple[bytes, str]:
        return error_body(entry, self._answers)

"""A recorded OpenAI Responses request body in chat-completions terms.

- ``instructions`` becomes a leading ``system`` message; ``input`` as a string is one
  ``user`` message.
- ``input`` as a list is read item by item, in order. A message item (``role`` with
  or without ``"type": "message"``) keeps its role (``developer`` reads as
  ``system``); its text parts (``input_text``, ``output_text``, ``text``,
  ``refusal``) are joined. A user message's images and files stay as chat content
  parts (``image_url``, ``file``) and are named in the notes.
- A ``reasoning`` item's summary and ``reasoning_text`` go to the next assistant
  message as ``reasoning_content``; a reasoning item closes the assistant message
  before it. ``function_call`` items join the assistant message right before them (a
  new one when there is none) as ``tool_calls``; ``function_call_output`` items become
  ``tool`` messages (a string output stays, a list of text parts is joined, anything
  else is JSON text).
- Function tools (flat ``{"type": "function", "name", "description", "parameters",
  "strict"}``) become chat-completions tools, as do the function tools an
  ``additional_tools`` or ``tool_search_output`` item brings in mid-conversation; every
  other tool type is a server tool, named by its type.
- Other input items (``web_search_call``, ``tool_search_call``, ``mcp_call``,
  ``item_reference``...) have no chat-completions form and are named in the notes,
  as is every value of the wrong type; nothing here raises.
- ``previous_response_id`` is kept; the body's other keys are the settings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._format import ChatRequest

__all__ = ["read_request"]

_TEXT_PARTS = frozenset({"input_text", "output_text", "text", "summary_text", "reasoning_text"})
_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
_NOT_SETTINGS = frozenset({"input", "instructions", "tools"})
_TOOL_ITEMS = frozenset({"additional_tools", "tool_search_output"})


def _type_of(value: object) -> str | None:
    kind = value.get("type") if isinstance(value, Mapping) else None
    return kind if isinstance(kind, str) else None


def _kind(value: object) -> str:
    if isinstance(value, Mapping):
        kind = value.get("type")
        return repr(kind) if kind is not None else "object without a type"
    return type(value).__name__


def _as_json_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


class _Reader:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = []
        self.server_tools: list[str] = []
        self.notes: list[str] = []
        self._assistant: dict[str, Any] | None = None
        self._reasoning: list[str] = []

    # -- tools ------------------------------------------------------------------------

    def tool(self, tool: object, where: str) -> None:
        if not isinstance(tool, Mapping):
            self.notes.append(f"{where}: a tool of type {_kind(tool)} is not an object; left out")
            return
        kind = tool.get("type")
        if kind != "function":
            if isinstance(kind, str) and kind:
                if kind not in self.server_tools:
                    self.server_tools.append(kind)
            else:
                self.notes.append(f"{where}: a tool without a type; left out")
            return
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            self.notes.append(f"{where}: a function tool without a name; left out")
            return
        if any(known["function"]["name"] == name for known in self.tools):
            return
        function: dict[str, Any] = {"name": name}
        for key in ("description", "parameters", "strict"):
            if key in tool:
                function[key] = tool[key]
        self.tools.append({"type": "function", "function": function})

    # -- input items ------------------------------------------------------------------

    def _text(self, content: object, where: str, role: str) -> str | list[dict[str, Any]]:
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            self.notes.append(f"{where}: content of type {_kind(content)} is not text; left out")
            return ""
        texts: list[str] = []
        others: list[dict[str, Any]] = []
        for part in content:
            kind = _type_of(part)
            if isinstance(part, Mapping) and kind in _TEXT_PARTS | {"refusal"}:
                text = part.get("refusal" if kind == "refusal" else "text")
                if isinstance(text, str):
                    texts.append(text)
                    continue
            kept = self._media(part) if role == "user" else None
            if kept is not None:
                others.append(kept)
            self.notes.append(
                f"{where}: a content part of type {_kind(part)}"
                + (" kept as a chat content part" if kept is not None else " left out")
            )
        joined = "".join(texts)
        if not others:
            return joined
        return ([{"type": "text", "text": joined}] if joined else []) + others

    @staticmethod
    def _media(part: object) -> dict[str, Any] | None:
        if not isinstance(part, Mapping):
            return None
        if _type_of(part) == "input_image":
            url = part.get("image_url") or part.get("file_id")
            if isinstance(url, str):
                image: dict[str, Any] = {"url": url}
                if isinstance(part.get("detail"), str):
                    image["detail"] = part["detail"]
                return {"type": "image_url", "image_url": image}
        if _type_of(part) == "input_file":
            file = {k: part[k] for k in ("file_id", "file_data", "filename") if k in part}
            if file:
                return {"type": "file", "file": file}
        return None

    def _append(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._assistant = message if message["role"] == "assistant" else None
        if message["role"] == "assistant" and self._reasoning:
            message["reasoning_content"] = "\n\n".join(self._reasoning)
            self._reasoning = []

    def message(self, item: Mapping[str, Any], where: str) -> None:
        role = _ROLES.get(item["role"]) if isinstance(item.get("role"), str) else None
        if role is None:
            self.notes.append(f"{where}: a message with role {item.get('role')!r}; left out")
            return
        self._append({"role": role, "content": self._text(item.get("content"), where, role)})

    def reasoning(self, item: Mapping[str, Any], where: str) -> None:
        self._assistant = None
        found = False
        for field_name in ("summary", "content"):
            parts = item.get(field_name)
            for part in parts if isinstance(parts, list) else []:
                text = part.get("text") if isinstance(part, Mapping) else None
                if isinstance(text, str) and text:
                    self._reasoning.append(text)
                    found = True
        if not found:
            sealed = " (encrypted only)" if item.get("encrypted_content") else ""
            self.notes.append(f"{where}: a reasoning item without readable text{sealed}")

    def function_call(self, item: Mapping[str, Any], where: str) -> None:
        call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments")
        if not isinstance(call_id, str) or not isinstance(name, str):
            self.notes.append(f"{where}: a function_call without a string call_id and name")
            return
        if not isinstance(arguments, str):
            arguments = "{}" if arguments is None else _as_json_text(arguments)
        assistant = self._assistant
        if assistant is None:
            assistant = {"role": "assistant", "content": None}
            self._append(assistant)
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        assistant.setdefault("tool_calls", []).append(call)

    def function_call_output(self, item: Mapping[str, Any], where: str) -> None:
        call_id, output = item.get("call_id"), item.get("output")
        if not isinstance(call_id, str):
            self.notes.append(f"{where}: a function_call_output without a string call_id")
            return
        if isinstance(output, str):
            content = output
        elif isinstance(output, list) and all(
            _type_of(part) in _TEXT_PARTS and isinstance(part.get("text"), str) for part in output
        ):
            content = "".join(part["text"] for part in output)
        else:
            content = _as_json_text(output)
        self._append({"role": "tool", "tool_call_id": call_id, "content": content})

    def item(self, item: object, number: int) -> None:
        where = f"input item {number}"
        if not isinstance(item, Mapping):
            self.notes.append(f"{where} of type {_kind(item)} is not an object; left out")
            return
        kind = _type_of(item)
        if item.get("type") in (None, "message") and "role" in item:
            self.message(item, where)
        elif kind == "reasoning":
            self.reasoning(item, where)
        elif kind == "function_call":
            self.function_call(item, where)
        elif kind == "function_call_output":
            self.function_call_output(item, where)
        else:
            tools = item.get("tools") if kind in _TOOL_ITEMS else None
            for tool in tools if isinstance(tools, list) else []:
                self.tool(tool, where)
            brought = " (its function tools are declared as client tools)" if tools else ""
            self.notes.append(
                f"{where} of type {_kind(item)} has no chat-completions form{brought}"
            )

    def finish(self) -> None:
        if self._reasoning:
            self.notes.append("reasoning after the last assistant message; left out")


def read_request(url: str, body: object) -> ChatRequest:
    """The body in chat-completions terms (see the module doc); never raises."""
    del url
    if not isinstance(body, Mapping):
        return ChatRequest(
            model=None, messages=[], notes=(f"the body of type {_kind(body)} is not an object",)
        )
    reader = _Reader()
    declared = body.get("tools")
    if isinstance(declared, list):
        for tool in declared:
            reader.tool(tool, "tools")
    elif declared is not None:
        reader.notes.append(f"tools of type {_kind(declared)} are not a list; left out")
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        if instructions:
            reader.messages.append({"role": "system", "content": instructions})
    elif instructions is not None:
        reader.notes.append(f"instructions of type {_kind(instructions)} are not text; left out")
    given = body.get("input")
    if isinstance(given, str):
        reader.messages.append({"role": "user", "content": given})
    elif isinstance(given, list):
        for number, item in enumerate(given):
            reader.item(item, number)
        reader.finish()
    elif given is not None:
        reader.notes.append(f"input of type {_kind(given)} is neither text nor a list; left out")
    model, previous = body.get("model"), body.get("previous_response_id")
    for key, value in (("model", model), ("previous_response_id", previous)):
        if value is not None and not isinstance(value, str):
            reader.notes.append(f"{key} of type {_kind(value)} is not a string; ignored")
    return ChatRequest(
        model=model if isinstance(model, str) and model else None,
        messages=reader.messages,
        tools=reader.tools,
        settings={k: v for k, v in body.items() if k not in _NOT_SETTINGS},
        stream=body.get("stream") is True,
        server_tools=tuple(reader.server_tools),
        previous_response_id=previous if isinstance(previous, str) and previous else None,
        notes=tuple(reader.notes),
    )

"""A recorded Anthropic Messages request body in chat-completions terms.

- ``system`` (a string, or a list of text blocks that may carry ``cache_control``)
  becomes one leading ``system`` message, its texts joined by blank lines.
- A ``user`` message becomes a ``user`` message: a string stays; text blocks are
  joined by newlines; an image whose ``source`` is base64 data or a URL is kept as an
  ``image_url`` content part (the message content is then a list of parts); other
  blocks (documents, files...) are named in the notes and left out. Its ``tool_result``
  blocks become ``tool`` messages, in order, before the user message holding the rest.
  A result's content stays when it is a string, is joined when it is a list of text
  blocks and is written as JSON otherwise; an ``is_error`` result is named in the
  notes.
- An ``assistant`` message becomes an ``assistant`` message: its text blocks joined
  as ``content`` (None when it has none), its ``tool_use`` blocks as ``tool_calls``
  with the ``input`` as JSON text, its ``thinking`` texts joined as
  ``reasoning_content``. Redacted thinking and server-side blocks are named in the
  notes.
- A declared tool with an ``input_schema`` (and no ``type``, or the type ``custom``)
  is a client function tool. A tool of another type is either one the provider runs
  (web search, web fetch, code execution, tool search, MCP toolsets...: its type goes
  to ``server_tools``) or one of the Anthropic-defined client tools (``bash_*``,
  ``text_editor_*``, ``computer_*``, ``memory_*``), whose schema the body does not
  carry: those are named in the notes and not registered.
- Every other key of the body (``model``, ``max_tokens``, ``stream``, ``tool_choice``,
  ``thinking``...) is kept in ``settings`` as recorded.

Nothing here raises: a message, block or tool of the wrong shape is skipped and named
in the notes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._format import ChatRequest

__all__ = ["read_messages_request"]

_CLIENT_DEFINED = ("bash_", "text_editor_", "computer_", "memory_")
"""Type prefixes of Anthropic-defined tools the client runs."""


def _kind(value: object) -> str:
    return type(value).__name__


def _text_blocks(value: object, where: str, notes: list[str]) -> list[str]:
    """The texts of a string or a list of text blocks; other items go to the notes."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        if value is not None:
            notes.append(f"{where} is a {_kind(value)}, not text; left out")
        return []
    texts: list[str] = []
    for number, block in enumerate(value):
        text = block.get("text") if isinstance(block, Mapping) else None
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(text, str):
            texts.append(text)
        else:
            notes.append(f"{where}[{number}] is not a text block; left out")
    return texts


def _result_text(content: object) -> str:
    """A tool result's content as the text of a ``tool`` message."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        for block in content
    ):
        return "\n".join(block["text"] for block in content)
    return json.dumps(content, ensure_ascii=False, default=str)


def _image_part(block: Mapping[str, Any]) -> dict[str, Any] | None:
    source = block.get("source")
    if not isinstance(source, Mapping):
        return None
    if source.get("type") == "base64":
        media, data = source.get("media_type"), source.get("data")
        if isinstance(media, str) and isinstance(data, str):
            return {"type": "image_url", "image_url": {"url": f"data:{media};base64,{data}"}}
    if source.get("type") == "url" and isinstance(source.get("url"), str):
        return {"type": "image_url", "image_url": {"url": source["url"]}}
    return None


def _user(content: object, where: str, notes: list[str]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    if not isinstance(content, list):
        notes.append(f"{where}.content is a {_kind(content)}; message left out")
        return []
    out: list[dict[str, Any]] = []
    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    for number, block in enumerate(content):
        at = f"{where}.content[{number}]"
        kind = block.get("type") if isinstance(block, Mapping) else None
        if isinstance(block, Mapping) and kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif isinstance(block, Mapping) and kind == "tool_result":
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                notes.append(f"{at} is a tool_result without a string tool_use_id; left out")
                continue
            if block.get("is_error") is True:
                notes.append(f"{at}: the result for {call_id} is marked is_error")
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "content": _result_text(block.get("content")),
                }
            )
        elif isinstance(block, Mapping) and kind == "image" and _image_part(block) is not None:
            parts.append(_image_part(block) or {})
            notes.append(f"{at} is an image, kept as an image_url part")
        else:
            shown = kind if isinstance(kind, str) else _kind(block)
            notes.append(f"{at} is a {shown} block, which chat messages do not carry; left out")
    if parts:
        text_parts = [{"type": "text", "text": text} for text in texts]
        out.append({"role": "user", "content": text_parts + parts})
    elif texts:
        out.append({"role": "user", "content": "\n".join(texts)})
    elif not out:
        notes.append(f"{where} holds nothing chat messages carry; left out")
    return out


def _tool_call(block: Mapping[str, Any], at: str, notes: list[str]) -> dict[str, Any] | None:
    call_id, name, arguments = block.get("id"), block.get("name"), block.get("input")
    if not isinstance(call_id, str) or not isinstance(name, str):
        notes.append(f"{at} is a tool_use without a string id and name; left out")
        return None
    if not isinstance(arguments, Mapping):
        notes.append(f"{at}: the input of {call_id} is a {_kind(arguments)}, not an object")
    return {
        "id": call_id,
        "type": "function",
        "function": {
            "name": name,
            "arguments": json.dumps(arguments, ensure_ascii=False, default=str),
        },
    }


def _assistant(content: object, where: str, notes: list[str]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "assistant", "content": content}]
    if not isinstance(content, list):
        notes.append(f"{where}.content is a {_kind(content)}; message left out")
        return []
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[dict[str, Any]] = []
    for number, block in enumerate(content):
        at = f"{where}.content[{number}]"
        kind = block.get("type") if isinstance(block, Mapping) else None
        if not isinstance(block, Mapping) or not isinstance(kind, str):
            notes.append(f"{at} is not a content block; left out")
        elif kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thoughts.append(block["thinking"])
        elif kind == "tool_use":
            call = _tool_call(block, at, notes)
            if call is not None:
                calls.append(call)
        else:
            notes.append(f"{at} is a {kind} block, which chat messages do not carry; left out")
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    if thoughts:
        message["reasoning_content"] = "".join(thoughts)
    if calls:
        message["tool_calls"] = calls
    return [message]


def _tools(declared: object, notes: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    if declared is None:
        return [], []
    if not isinstance(declared, list):
        notes.append(f"tools is a {_kind(declared)}, not a list; no tools read")
        return [], []
    tools: list[dict[str, Any]] = []
    server: list[str] = []
    for number, tool in enumerate(declared):
        at = f"tools[{number}]"
        if not isinstance(tool, Mapping):
            notes.append(f"{at} is a {_kind(tool)}, not a tool; left out")
            continue
        kind, name = tool.get("type"), tool.get("name")
        if kind not in (None, "custom"):
            if not isinstance(kind, str):
                notes.append(f"{at} has a type that is not a string; left out")
            elif kind.startswith(_CLIENT_DEFINED):
                notes.append(
                    f"{at} ({name!r}) is the Anthropic-defined client tool {kind}, whose "
                    "schema the body does not carry; not registered"
                )
            else:
                server.append(kind)
            continue
        schema = tool.get("input_schema")
        if not isinstance(name, str) or not isinstance(schema, Mapping):
            notes.append(f"{at} has no string name and object input_schema; left out")
            continue
        function: dict[str, Any] = {"name": name, "parameters": dict(schema)}
        if isinstance(tool.get("description"), str):
            function["description"] = tool["description"]
        if isinstance(tool.get("strict"), bool):
            function["strict"] = tool["strict"]
        tools.append({"type": "function", "function": function})
    return tools, server


def read_messages_request(body: Mapping[str, Any]) -> ChatRequest:
    """The body in chat-completions terms (see the module doc); never raises."""
    notes: list[str] = []
    messages: list[dict[str, Any]] = []
    system = _text_blocks(body.get("system"), "system", notes)
    if system:
        messages.append({"role": "system", "content": "\n\n".join(system)})
    recorded = body.get("messages")
    if not isinstance(recorded, list):
        notes.append(f"messages is a {_kind(recorded)}, not a list; no messages read")
        recorded = []
    for number, message in enumerate(recorded):
        where = f"messages[{number}]"
        role = message.get("role") if isinstance(message, Mapping) else None
        if not isinstance(message, Mapping) or role not in ("user", "assistant"):
            notes.append(f"{where} is not a user or assistant message; left out")
        elif role == "user":
            messages += _user(message.get("content"), where, notes)
        else:
            messages += _assistant(message.get("content"), where, notes)
    tools, server = _tools(body.get("tools"), notes)
    model = body.get("model")
    return ChatRequest(
        model=model if isinstance(model, str) and model else None,
        messages=messages,
        tools=tools,
        settings={k: v for k, v in body.items() if k not in ("messages", "tools", "system")},
        stream=body.get("stream") is True,
        server_tools=tuple(server),
        notes=tuple(notes),
    )

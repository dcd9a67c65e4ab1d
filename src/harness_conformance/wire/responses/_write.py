"""The request side of ``openai-responses``: a chat-completions request as a Responses body.

`request_body` is the inverse of `read_request` for everything the loop sends:

- The first message, when it is a ``system`` message with non-empty text, becomes
  ``instructions``. Every other ``system`` message (a second leading one, or one in the
  middle of the conversation) stays in ``input`` as a message with role ``system``, so
  nothing is merged and the order is kept.
- ``user`` and ``assistant`` messages become ``{"type": "message", "role", "content"}``
  input items. Text content stays a string. A user message's content parts become
  Responses parts: ``text`` ``input_text``, ``image_url`` ``input_image`` (``detail``
  kept), ``file`` ``input_file``; parts already spelled the Responses way
  (``input_text``, ``input_image``, ``input_file``) pass unchanged. An assistant
  message's text parts are joined.
- An assistant message's ``tool_calls`` follow its text as ``function_call`` items
  (``call_id``, ``name``, ``arguments``), without item ids, so they need no reasoning
  item beside them. An assistant message with tool calls and no text sends no message
  item. ``reasoning_content`` is not sent: the API takes reasoning back only as the
  items it issued, with their ids.
- A ``tool`` message becomes a ``function_call_output`` item (``call_id``,
  ``output``); text parts become ``input_text`` parts.
- Tools become flat ``{"type": "function", "name", "description", "parameters",
  "strict"}``. The API requires ``parameters`` and ``strict`` and makes function tools
  strict by default, so a tool without ``strict`` is sent ``"strict": false``, as
  chat-completions reads it, and one without ``parameters`` an empty object schema.
- Settings: ``model`` overrides the model; ``max_tokens`` and
  ``max_completion_tokens`` become ``max_output_tokens``; ``reasoning_effort`` becomes
  ``reasoning.effort``; ``response_format`` becomes ``text.format``; a chat
  ``tool_choice`` naming a function becomes ``{"type": "function", "name"}``;
  ``stream_options.include_usage`` is dropped (a Responses stream always ends with its
  usage) and ``stream`` is the argument. Every other key is sent unchanged, ``store``
  included: the body says ``"store": false`` only when the settings do.

A message that cannot be written (an unknown role, a tool message without a
``tool_call_id``, a content part with no Responses form) raises `ValueError` naming the
message and what to change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["request_body"]

_PASSED_PARTS = frozenset({"input_text", "input_image", "input_file"})
_EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


def _where(number: int, message: Mapping[str, Any]) -> str:
    return f"message {number} (role {message.get('role')!r})"


def _text_of(content: object, where: str) -> str:
    """The text of a content that must be text: a string, or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        texts: list[str] = []
        for part in content:
            text = part.get("text") if isinstance(part, Mapping) else None
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind not in ("text", "input_text", "output_text") or not isinstance(text, str):
                raise ValueError(
                    f"{where}: content part {part!r} is not text; only text parts can be "
                    "sent in this message"
                )
            texts.append(text)
        return "".join(texts)
    raise ValueError(f"{where}: content of type {type(content).__name__} is neither text nor parts")


def _user_part(part: object, where: str) -> dict[str, Any]:
    if not isinstance(part, Mapping):
        raise ValueError(f"{where}: content part {part!r} is not an object")
    kind = part.get("type")
    if kind in _PASSED_PARTS:
        return dict(part)
    if kind == "text" and isinstance(part.get("text"), str):
        return {"type": "input_text", "text": part["text"]}
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, Mapping) else image
        if isinstance(url, str):
            out: dict[str, Any] = {"type": "input_image", "image_url": url}
            if isinstance(image, Mapping) and isinstance(image.get("detail"), str):
                out["detail"] = image["detail"]
            return out
    if kind == "file" and isinstance(part.get("file"), Mapping):
        kept = {k: v for k, v in part["file"].items() if k in ("file_id", "file_data", "filename")}
        if kept:
            return {"type": "input_file", **kept}
    raise ValueError(
        f"{where}: content part of type {kind!r} has no OpenAI Responses form; send text, "
        "image_url or file parts"
    )


def _user_content(content: object, where: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        return [_user_part(part, where) for part in content]
    raise ValueError(f"{where}: content of type {type(content).__name__} is neither text nor parts")


def _function_calls(message: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
    calls = message.get("tool_calls") or []
    if not isinstance(calls, Sequence):
        raise ValueError(f"{where}: tool_calls must be a list")
    items: list[dict[str, Any]] = []
    for number, call in enumerate(calls):
        function = call.get("function") if isinstance(call, Mapping) else None
        call_id = call.get("id") if isinstance(call, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise ValueError(
                f"{where}: tool call {number} needs a string id and function.name, "
                'as {"id", "type": "function", "function": {"name", "arguments"}}'
            )
        arguments = function.get("arguments") if isinstance(function, Mapping) else None
        items.append(
            {
                "type": "function_call",
                "call_id": call_id,
                "name": name,
                "arguments": arguments if isinstance(arguments, str) else "{}",
            }
        )
    return items


def _tool_output(content: object, where: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return [{"type": "input_text", "text": _text_of([part], where)} for part in content]
    raise ValueError(f"{where}: content of type {type(content).__name__} is neither text nor parts")


def _items(messages: Sequence[Mapping[str, Any]]) -> tuple[str | None, list[dict[str, Any]]]:
    instructions: str | None = None
    items: list[dict[str, Any]] = []
    for number, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise ValueError(f"message {number} is a {type(message).__name__}, not an object")
        where = _where(number, message)
        role = message.get("role")
        content = message.get("content")
        if role == "system":
            text = _text_of(content, where)
            if number == 0 and text:
                instructions = text
            else:
                items.append({"type": "message", "role": "system", "content": text})
        elif role == "user":
            items.append(
                {"type": "message", "role": "user", "content": _user_content(content, where)}
            )
        elif role == "assistant":
            text = _text_of(content, where)
            calls = _function_calls(message, where)
            if text or not calls:
                items.append({"type": "message", "role": "assistant", "content": text})
            items += calls
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str):
                raise ValueError(f"{where}: a tool message needs a string tool_call_id")
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": _tool_output(content, where),
                }
            )
        else:
            raise ValueError(
                f"{where}: unknown role; use system, user, assistant or tool (developer "
                "messages are sent as system)"
            )
    return instructions, items


def _tool(tool: Mapping[str, Any], number: int) -> dict[str, Any]:
    function = tool.get("function")
    if tool.get("type") != "function" or not isinstance(function, Mapping):
        raise ValueError(
            f"tool {number} is not a chat-completions function tool "
            '{"type": "function", "function": {"name", "description", "parameters"}}'
        )
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"tool {number} needs a non-empty function.name")
    out: dict[str, Any] = {"type": "function", "name": name}
    if "description" in function:
        out["description"] = function["description"]
    parameters = function.get("parameters")
    out["parameters"] = dict(_EMPTY_SCHEMA) if parameters is None else parameters
    strict = function.get("strict")
    out["strict"] = strict if isinstance(strict, bool) else False
    return out


def _tool_choice(choice: object) -> object:
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        function = choice.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            return {"type": "function", "name": function["name"]}
    return choice


def _text_format(response_format: object) -> object:
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_schema":
        schema = response_format.get("json_schema")
        if isinstance(schema, Mapping):
            return {"type": "json_schema", **schema}
    return response_format


_NOT_SETTINGS = frozenset({"model", "stream", "messages", "input", "instructions", "tools"})
_DERIVED = frozenset({"max_tokens", "max_completion_tokens", "reasoning_effort", "response_format"})


def _nested(body: dict[str, Any], key: str, inner: str, value: object) -> None:
    """Set ``body[key][inner]`` unless the settings gave it already."""
    current = body.get(key)
    if current is None:
        body[key] = {inner: value}
    elif isinstance(current, Mapping) and inner not in current:
        body[key] = {**current, inner: value}


def _settings(settings: Mapping[str, Any], body: dict[str, Any]) -> None:
    for key, value in settings.items():
        if key in _NOT_SETTINGS or key in _DERIVED:
            continue
        if key == "tool_choice":
            body[key] = _tool_choice(value)
        elif key == "stream_options" and isinstance(value, Mapping):
            options = {k: v for k, v in value.items() if k != "include_usage"}
            if options:
                body[key] = options
        else:
            body[key] = value
    for key in ("max_tokens", "max_completion_tokens"):
        if key in settings:
            body.setdefault("max_output_tokens", settings[key])
    if "reasoning_effort" in settings:
        _nested(body, "reasoning", "effort", settings["reasoning_effort"])
    if "response_format" in settings:
        _nested(body, "text", "format", _text_format(settings["response_format"]))


def request_body(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    *,
    model: str,
    stream: bool,
) -> dict[str, Any]:
    """The OpenAI Responses body for one chat-completions request (see the module doc);
    `ValueError` names a message or tool that cannot be written."""
    chosen = settings.get("model")
    body: dict[str, Any] = {"model": chosen if isinstance(chosen, str) and chosen else model}
    instructions, items = _items(messages)
    if instructions is not None:
        body["instructions"] = instructions
    body["input"] = items
    if tools:
        body["tools"] = [_tool(tool, number) for number, tool in enumerate(tools)]
    _settings(settings, body)
    body["stream"] = stream
    return body

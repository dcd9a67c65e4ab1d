"""A chat-completions request as an Anthropic Messages request body.

`request_body` is the inverse of `read_messages_request` for everything the loop sends:
reading the body it writes gives back the same messages and tools (argument texts
equal as JSON values).

- The leading ``system`` messages become ``system``: the text of one, or a list of
  text blocks for several (content parts stay as they are). Anthropic has no system
  role inside the conversation, so a ``system`` message after another role is refused.
- A ``user`` message keeps a string content as it is; content parts become blocks:
  ``text`` parts stay, an ``image_url`` part becomes an ``image`` block (a base64
  ``data:`` URL as a ``base64`` source, any other URL as a ``url`` source), and any
  other part is passed on unchanged (so Anthropic blocks may be given directly).
- An ``assistant`` message with nothing but text keeps its content as a string.
  Otherwise its text (non-empty) becomes a ``text`` block followed by one ``tool_use``
  block per tool call, whose ``input`` is the argument text parsed: an empty text is
  ``{}``, and a text that is not a JSON object is sent whole as
  ``{"_raw_arguments": text}`` (`RAW_ARGUMENTS`), since the format only carries an
  object and the model must still see what it sent. ``reasoning_content`` is left
  out: a ``thinking`` block is only accepted back with the signature the provider
  issued for it, which chat messages do not carry.
- Consecutive ``tool`` messages become one ``user`` message of ``tool_result``
  blocks, in order; a result's content is its text, or its parts as blocks.
- Function tools become ``{"name", "description", "input_schema"}`` (and ``strict``
  when given); a tool given in another shape (a server tool such as
  ``{"type": "web_search_20250305", ...}``) is passed on unchanged.
- ``max_tokens`` is required: the ``max_tokens`` setting, else
  ``max_completion_tokens``, else ``max_tokens=`` (the model's default). ``model`` is
  the ``model`` setting, else ``model=``. ``stop`` becomes ``stop_sequences``;
  ``tool_choice`` in chat terms (``"auto"``, ``"none"``, ``"required"``, a named
  function) becomes Anthropic's, and ``parallel_tool_calls: false`` becomes its
  ``disable_parallel_tool_use``. ``stream`` is the ``stream=`` argument;
  ``stream_options`` is dropped. Every other setting (``temperature``, ``top_p``,
  ``top_k``, ``thinking``, ``metadata``...) is passed on unchanged.

A message this format cannot say raises `ValueError` naming the message and what to
change.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["DEFAULT_MAX_TOKENS", "RAW_ARGUMENTS", "request_body"]

DEFAULT_MAX_TOKENS = 4096
"""The ``max_tokens`` sent when neither the settings nor the caller give one."""

RAW_ARGUMENTS = "_raw_arguments"
"""The ``input`` key holding an argument text that is not a JSON object."""

_DROPPED = frozenset({"stream", "stream_options", "max_completion_tokens", "parallel_tool_calls"})
_CHOICES = {"auto": "auto", "none": "none", "required": "any", "any": "any"}


def _where(number: int) -> str:
    return f"messages[{number}]"


def _image(part: Mapping[str, Any]) -> dict[str, Any]:
    """An ``image_url`` part as an ``image`` block."""
    given = part.get("image_url")
    url = given.get("url") if isinstance(given, Mapping) else given
    if not isinstance(url, str):
        return dict(part)
    head, comma, data = url.partition(",")
    if url.startswith("data:") and comma and head.endswith(";base64"):
        media = head[len("data:") : -len(";base64")]
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _blocks(content: object, where: str) -> list[dict[str, Any]]:
    """Chat content (a string or parts) as content blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, Sequence):
        raise ValueError(
            f"{where}.content is a {type(content).__name__}; give a string or a list of "
            "content parts"
        )
    blocks: list[dict[str, Any]] = []
    for number, part in enumerate(content):
        if not isinstance(part, Mapping):
            raise ValueError(
                f"{where}.content[{number}] is a {type(part).__name__}; give content "
                'parts as objects such as {"type": "text", "text": "..."}'
            )
        blocks.append(_image(part) if part.get("type") == "image_url" else dict(part))
    return blocks


def _content(content: object, where: str) -> str | list[dict[str, Any]]:
    """A user or tool content: a string stays, parts become blocks."""
    if content is None:
        return ""
    return content if isinstance(content, str) else _blocks(content, where)


def _arguments(text: object) -> dict[str, Any]:
    """A tool call's argument text as a ``tool_use`` input (see `RAW_ARGUMENTS`)."""
    if isinstance(text, Mapping):
        return dict(text)
    if text is None or (isinstance(text, str) and not text.strip()):
        return {}
    if not isinstance(text, str):
        return {RAW_ARGUMENTS: json.dumps(text, ensure_ascii=False, default=str)}
    try:
        value = json.loads(text)
    except ValueError:
        return {RAW_ARGUMENTS: text}
    return value if isinstance(value, dict) else {RAW_ARGUMENTS: text}


def _tool_use(call: object, where: str) -> dict[str, Any]:
    function = call.get("function") if isinstance(call, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    call_id = call.get("id") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping) or not isinstance(name, str) or not name:
        raise ValueError(f"{where} is not a function call with a name; give {{'id', 'function'}}")
    if not isinstance(call_id, str) or not call_id:
        raise ValueError(f"{where} has no string id; every tool call needs the id of its result")
    return {
        "type": "tool_use",
        "id": call_id,
        "name": name,
        "input": _arguments(function.get("arguments")),
    }


def _assistant(message: Mapping[str, Any], where: str) -> dict[str, Any]:
    content = message.get("content")
    calls = message.get("tool_calls") or []
    if not isinstance(calls, Sequence) or isinstance(calls, str):
        raise ValueError(f"{where}.tool_calls is a {type(calls).__name__}; give a list")
    if not calls and isinstance(content, str):
        return {"role": "assistant", "content": content}
    blocks = [b for b in _blocks(content, where) if b.get("type") != "text" or b.get("text")]
    blocks += [_tool_use(call, f"{where}.tool_calls[{n}]") for n, call in enumerate(calls)]
    return {"role": "assistant", "content": blocks}


def _tool_result(message: Mapping[str, Any], where: str) -> dict[str, Any]:
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise ValueError(f"{where} is a tool message without a string tool_call_id")
    return {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": _content(message.get("content"), where),
    }


def _system(messages: Sequence[object]) -> tuple[object, int]:
    """The ``system`` value of the leading system messages, and how many there were."""
    contents: list[object] = []
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") != "system":
            break
        contents.append(message.get("content"))
    if not contents:
        return None, 0
    if len(contents) == 1 and isinstance(contents[0], str):
        return contents[0], 1
    blocks: list[dict[str, Any]] = []
    for number, content in enumerate(contents):
        blocks += _blocks(content, _where(number))
    return blocks, len(contents)


def _messages(messages: Sequence[object], start: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for number in range(start, len(messages)):
        message, where = messages[number], _where(number)
        if not isinstance(message, Mapping):
            raise ValueError(f"{where} is a {type(message).__name__}, not a message object")
        role = message.get("role")
        if role == "tool":
            results.append(_tool_result(message, where))
            continue
        if results:
            out.append({"role": "user", "content": results})
            results = []
        if role == "user":
            out.append({"role": "user", "content": _content(message.get("content"), where)})
        elif role == "assistant":
            out.append(_assistant(message, where))
        elif role == "system":
            raise ValueError(
                f"{where} is a system message after the conversation started; Anthropic "
                "takes system text only before it: move it to the leading system messages"
            )
        else:
            raise ValueError(
                f"{where} has role {role!r}; give system, user, assistant or tool messages"
            )
    if results:
        out.append({"role": "user", "content": results})
    return out


def _tools(tools: Sequence[object]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for number, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise ValueError(f"tools[{number}] is a {type(tool).__name__}, not a tool")
        function = tool.get("function")
        if not isinstance(function, Mapping):
            out.append(dict(tool))
            continue
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"tools[{number}] is a function tool without a name")
        written: dict[str, Any] = {"name": name}
        if isinstance(function.get("description"), str):
            written["description"] = function["description"]
        schema = function.get("parameters")
        written["input_schema"] = (
            dict(schema) if isinstance(schema, Mapping) else {"type": "object", "properties": {}}
        )
        if isinstance(function.get("strict"), bool):
            written["strict"] = function["strict"]
        out.append(written)
    return out


def _tool_choice(settings: Mapping[str, Any]) -> dict[str, Any] | None:
    choice = settings.get("tool_choice")
    if isinstance(choice, str) and choice in _CHOICES:
        written: dict[str, Any] = {"type": _CHOICES[choice]}
    elif isinstance(choice, Mapping) and choice.get("type") == "function":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        written = {"type": "tool", "name": name}
    elif isinstance(choice, Mapping):
        written = dict(choice)
    elif settings.get("parallel_tool_calls") is False:
        written = {"type": "auto"}
    else:
        return None
    if settings.get("parallel_tool_calls") is False and written.get("type") != "none":
        written["disable_parallel_tool_use"] = True
    return written


def _max_tokens(settings: Mapping[str, Any], default: int) -> object:
    for key in ("max_tokens", "max_completion_tokens"):
        if settings.get(key) is not None:
            return settings[key]
    return default


def request_body(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    *,
    model: str,
    stream: bool,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> dict[str, Any]:
    """The Anthropic Messages body of a chat-completions request (see the module doc).

    ``model`` and ``max_tokens`` are used when the settings name none. Raises
    `ValueError` for a message or tool the format cannot carry.
    """
    system, start = _system(messages)
    body: dict[str, Any] = {
        "model": settings.get("model") or model,
        "max_tokens": _max_tokens(settings, max_tokens),
    }
    if system is not None:
        body["system"] = system
    body["messages"] = _messages(messages, start)
    if tools:
        body["tools"] = _tools(tools)
    body["stream"] = stream
    for key, value in settings.items():
        if key in _DROPPED or key in body:
            continue
        if key == "stop":
            if value is not None:
                many = isinstance(value, Sequence) and not isinstance(value, str)
                body["stop_sequences"] = list(value) if many else [value]
        elif key == "tool_choice":
            continue
        else:
            body[key] = value
    choice = _tool_choice(settings)
    if choice is not None:
        body["tool_choice"] = choice
    return body

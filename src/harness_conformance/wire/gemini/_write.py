"""Chat-completions messages, tools and settings as a Gemini request: the write side of
the ``gemini`` format, the inverse of `read_request`.

- The model and streaming are in the URL, never in the body: `request_path` gives the
  path below the API version (``models/<model>:generateContent``, or
  ``models/<model>:streamGenerateContent?alt=sse`` for a server-sent event stream).
- Leading ``system`` (or ``developer``) messages become ``systemInstruction``, one text
  part each. A system message after the conversation has started has no Gemini form and
  raises `ValueError`.
- A ``user`` message is a ``user`` content: text as a ``text`` part; chat content parts as
  ``text`` parts and images (``image_url``) as ``inlineData`` for a ``data:`` URL, else
  ``fileData`` with the MIME type the URL's file name implies.
- An ``assistant`` message is a ``model`` content: ``reasoning_content`` as a ``text``
  part marked ``thought: true``, then its text, then one ``functionCall`` part (``id``,
  ``name``, ``args``: the arguments parsed, which must be a JSON object; empty text is
  ``{}``) per tool call. An assistant message with none of these carries nothing and is
  left out (Gemini refuses a content without parts).
- Consecutive ``tool`` messages make one ``user`` content of ``functionResponse`` parts
  (``id``: the call id answered; ``name``: the name of that call; ``response``:
  ``{"output": <the text>}``, the key the Gemini API documents for a function's output).
- Tools become one ``functionDeclarations`` entry: ``name``, ``description`` and the JSON
  Schema ``parameters`` as ``parametersJsonSchema``.
- Settings in chat-completions terms go to ``generationConfig`` (``max_tokens`` and
  ``max_completion_tokens``: ``maxOutputTokens``; ``temperature``; ``top_p``: ``topP``;
  ``top_k``: ``topK``; ``stop``: ``stopSequences``; ``seed``; ``presence_penalty``;
  ``frequency_penalty``; ``n``: ``candidateCount``), ``tool_choice`` to
  ``toolConfig.functionCallingConfig``; ``model``, ``stream`` and ``stream_options`` are
  the URL's business and dropped. Any other key is a Gemini body key and is sent as
  given (``safetySettings``, ``cachedContent``...; a ``generationConfig`` given as a
  setting is the base the mapped settings are merged into).

Input this mapping cannot express raises `ValueError` naming the message (its index in
``messages``) and what to change.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

__all__ = ["request_body", "request_path"]

_GENERATION = {
    "max_tokens": "maxOutputTokens",
    "max_completion_tokens": "maxOutputTokens",
    "temperature": "temperature",
    "top_p": "topP",
    "top_k": "topK",
    "stop": "stopSequences",
    "seed": "seed",
    "presence_penalty": "presencePenalty",
    "frequency_penalty": "frequencyPenalty",
    "n": "candidateCount",
}
_URL_SETTINGS = frozenset({"model", "stream", "stream_options"})
_CHOICE_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}


def request_path(model: str, *, stream: bool) -> str:
    """The request path below the API version: ``models/<model>:generateContent``, or
    ``models/<model>:streamGenerateContent?alt=sse`` when ``stream``. A model already
    given as ``models/…`` or ``tunedModels/…`` keeps its prefix."""
    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"a Gemini model name is a non-empty string, got {model!r}")
    name = model.strip()
    if not name.startswith(("models/", "tunedModels/")):
        name = f"models/{name}"
    prefix, _, rest = name.partition("/")
    path = f"{prefix}/{quote(rest, safe='-._~')}"
    return f"{path}:streamGenerateContent?alt=sse" if stream else f"{path}:generateContent"


def request_body(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    *,
    model: str,
    stream: bool,
) -> dict[str, Any]:
    """The ``generateContent`` body for a chat-completions request (see the module doc).

    ``model`` and ``stream`` belong to the URL (`request_path`); they are checked here so
    a request that cannot be sent fails before anything is built."""
    request_path(model, stream=stream)
    writer = _Writer()
    for index, message in enumerate(messages):
        writer.message(index, message)
    body: dict[str, Any] = {"contents": writer.contents}
    if writer.system:
        body["systemInstruction"] = {"parts": [{"text": text} for text in writer.system]}
    declarations = [_declaration(index, item) for index, item in enumerate(tools)]
    if declarations:
        body["tools"] = [{"functionDeclarations": declarations}]
    body.update(_settings(settings))
    return body


def _problem(index: int, text: str) -> ValueError:
    return ValueError(f"messages[{index}]: {text}")


def _text_of(index: int, content: object, what: str) -> str:
    """A message's content as text: a string, or its ``text`` parts joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if not (isinstance(part, Mapping) and isinstance(part.get("text"), str)):
                raise _problem(
                    index,
                    f"{what} holds a part that is not text: {part!r:.120}; send text parts only",
                )
            texts.append(part["text"])
        return "".join(texts)
    raise _problem(index, f"{what} is neither text nor a list of parts: {content!r:.120}")


def _image(index: int, part: Mapping[str, Any]) -> dict[str, Any]:
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, Mapping) else image
    if not isinstance(url, str) or not url:
        raise _problem(index, f"an image_url part has no URL: {part!r:.120}")
    if url.startswith("data:"):
        head, comma, data = url[5:].partition(",")
        mime, _, encoding = head.partition(";")
        if not comma or encoding != "base64" or not mime:
            raise _problem(index, "an image data URL must read data:<mime type>;base64,<data>")
        return {"inlineData": {"mimeType": mime, "data": data}}
    guessed = mimetypes.guess_type(url.split("?", 1)[0])[0]
    if guessed is None:
        raise _problem(
            index,
            f"the MIME type of image {url!r:.120} cannot be told from its name; "
            "send it as a data: URL",
        )
    return {"fileData": {"mimeType": guessed, "fileUri": url}}


def _user_parts(index: int, content: object) -> list[dict[str, Any]]:
    if content is None or isinstance(content, str):
        return [{"text": content or ""}]
    if not isinstance(content, list):
        raise _problem(index, f"user content is neither text nor a list: {content!r:.120}")
    parts: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text" and isinstance(part.get("text"), str):
            parts.append({"text": part["text"]})
        elif kind == "image_url":
            parts.append(_image(index, part))
        else:
            raise _problem(
                index, f"a user content part of type {kind!r} has no Gemini form: {part!r:.120}"
            )
    return parts


def _arguments(index: int, call_id: str, text: object) -> dict[str, Any]:
    if text is None or (isinstance(text, str) and not text.strip()):
        return {}
    if isinstance(text, Mapping):
        return dict(text)
    try:
        args = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        args = None
    if not isinstance(args, dict):
        raise _problem(
            index,
            f"tool call {call_id!r} has arguments that are not a JSON object: {text!r:.120}; "
            "Gemini takes function-call arguments as an object",
        )
    return args


class _Writer:
    """Walks the messages once, keeping the names of the calls made so far."""

    def __init__(self) -> None:
        self.system: list[str] = []
        self.contents: list[dict[str, Any]] = []
        self._names: dict[str, str] = {}
        self._answers: list[dict[str, Any]] | None = None
        """The parts of the ``user`` content the last run of tool messages is filling."""

    def message(self, index: int, message: Mapping[str, Any]) -> None:
        if not isinstance(message, Mapping):
            raise _problem(index, f"a message is an object, got {message!r:.120}")
        role = message.get("role")
        if role != "tool":
            self._answers = None
        if role in ("system", "developer"):
            if self.contents:
                raise _problem(
                    index,
                    f"a {role} message after the conversation started has no Gemini form; "
                    "put system text before the first user message",
                )
            self.system.append(_text_of(index, message.get("content"), f"{role} content"))
        elif role == "user":
            parts = _user_parts(index, message.get("content"))
            self.contents.append({"role": "user", "parts": parts})
        elif role == "assistant":
            self._assistant(index, message)
        elif role == "tool":
            self._tool(index, message)
        else:
            raise _problem(
                index, f"role {role!r} is not one of system, developer, user, assistant, tool"
            )

    def _assistant(self, index: int, message: Mapping[str, Any]) -> None:
        parts: list[dict[str, Any]] = []
        reasoning = message.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            parts.append({"text": reasoning, "thought": True})
        text = _text_of(index, message.get("content"), "assistant content")
        if text:
            parts.append({"text": text})
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            raise _problem(index, f"tool_calls is not a list: {calls!r:.120}")
        for call in calls:
            function = call.get("function") if isinstance(call, Mapping) else None
            if not isinstance(function, Mapping):
                function = {}
            call_id = call.get("id") if isinstance(call, Mapping) else None
            name = function.get("name")
            if not (isinstance(call_id, str) and call_id and isinstance(name, str) and name):
                raise _problem(index, f"a tool call needs an id and a function name: {call!r:.120}")
            args = _arguments(index, call_id, function.get("arguments"))
            parts.append({"functionCall": {"id": call_id, "name": name, "args": args}})
            self._names[call_id] = name
        if parts:
            self.contents.append({"role": "model", "parts": parts})

    def _tool(self, index: int, message: Mapping[str, Any]) -> None:
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise _problem(index, "a tool message needs the tool_call_id of the call it answers")
        name = self._names.get(call_id, message.get("name"))
        if not isinstance(name, str) or not name:
            raise _problem(
                index,
                f"tool message answers call {call_id!r}, which no earlier assistant message "
                "made; Gemini needs the name of the function answered",
            )
        output = _text_of(index, message.get("content"), "tool content")
        part = {"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}
        if self._answers is None:
            self._answers = []
            self.contents.append({"role": "user", "parts": self._answers})
        self._answers.append(part)


def _declaration(index: int, tool: Mapping[str, Any]) -> dict[str, Any]:
    function = tool.get("function") if isinstance(tool, Mapping) else None
    if not isinstance(tool, Mapping) or tool.get("type", "function") != "function":
        raise ValueError(f"tools[{index}]: only function tools have a Gemini form: {tool!r:.120}")
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        raise ValueError(f"tools[{index}]: a function tool needs function.name: {tool!r:.120}")
    out: dict[str, Any] = {"name": function["name"]}
    if isinstance(function.get("description"), str):
        out["description"] = function["description"]
    if function.get("parameters") is not None:
        out["parametersJsonSchema"] = function["parameters"]
    return out


def _tool_config(choice: object) -> dict[str, Any]:
    if isinstance(choice, str) and choice in _CHOICE_MODES:
        return {"functionCallingConfig": {"mode": _CHOICE_MODES[choice]}}
    function = choice.get("function") if isinstance(choice, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    if isinstance(name, str) and name:
        return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}}
    raise ValueError(
        f"settings.tool_choice: {choice!r:.120} is not auto, none, required or "
        '{"type": "function", "function": {"name": ...}}'
    )


def _settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    generation: dict[str, Any] = {}
    for key, value in settings.items():
        if key in _URL_SETTINGS:
            continue
        if key in _GENERATION:
            if key == "stop" and isinstance(value, str):
                value = [value]
            generation[_GENERATION[key]] = value
        elif key == "tool_choice":
            out["toolConfig"] = _tool_config(value)
        else:
            out[key] = value
    if generation:
        base = out.get("generationConfig")
        out["generationConfig"] = {**(base if isinstance(base, Mapping) else {}), **generation}
    return out

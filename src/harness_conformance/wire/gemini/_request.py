"""A recorded Gemini request in chat-completions terms (`ChatRequest`).

- The model is in the URL only (``…/models/<model>:generateContent``); the request
  streams when the URL ends in ``:streamGenerateContent``.
- ``systemInstruction`` (``system_instruction``), a string or a content whose text parts
  are joined, is a leading ``system`` message.
- Each of ``contents`` (role ``user``, missing or ``function``: the user side; role
  ``model``: the assistant) becomes messages in the order of its parts. On the user
  side, consecutive text and media parts make one ``user`` message (text only: the texts
  joined; with media: chat content parts, images as ``image_url``, other media named in
  the notes) and each ``functionResponse`` a ``tool`` message. A model turn is one
  ``assistant`` message: its text in ``content``, its thought parts in
  ``reasoning_content``, its ``functionCall`` parts in ``tool_calls``.
- Gemini calls rarely carry ids. A model-turn call keeps its own ``id``, else gets
  ``<name>-<turn>-<n>`` (``turn`` its content's position in ``contents``, ``n`` the call's
  position in that turn). A ``functionResponse`` keeps its own ``id``, else answers the
  first unanswered call of its name in the model turn before it, so every ``tool``
  message answers a ``tool_calls`` entry by id.
- A tool message's content is the response as text: a string stays, a list of text
  blocks is joined, anything else is JSON.
- Snake-case spellings (``function_call``, ``function_response``, ``inline_data``,
  ``file_data``, ``mime_type``, ``file_uri``...) read like the camel-case ones;
  ``thoughtSignature`` is ignored. Values of the wrong type are skipped and named in the
  notes; nothing raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from .._format import ChatRequest
from ._tools import read_tools

__all__ = ["model_of", "read_request", "streams"]

_MODEL = re.compile(r"/(?:tuned)?[mM]odels/([^/:]+):(?:stream)?[gG]enerate[cC]ontent$")
_READ = frozenset({"contents", "systemInstruction", "system_instruction", "tools"})


def model_of(url: str) -> str | None:
    """The model a Gemini URL names, or None."""
    found = _MODEL.search(urlsplit(url).path)
    return unquote(found.group(1)) if found else None


def streams(url: str) -> bool:
    """Whether the URL asks for a streamed response."""
    return urlsplit(url).path.endswith(":streamGenerateContent")


def _get(part: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = part.get(camel)
    return part.get(snake) if value is None else value


def _text_of(value: object) -> str | None:
    """A system instruction or content's text: a string, or its text parts joined."""
    if isinstance(value, str):
        return value
    parts = value.get("parts") if isinstance(value, Mapping) else None
    if isinstance(parts, Mapping):
        parts = [parts]
    if not isinstance(parts, list):
        return None
    return "".join(
        part["text"]
        for part in parts
        if isinstance(part, Mapping) and isinstance(part.get("text"), str)
    )


def _tool_content(response: object) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, Mapping) and len(response) == 1:
        # The form a client writes plain text output in: {"output": "..."}.
        output = response.get("output")
        if isinstance(output, str):
            return output
    if isinstance(response, list) and all(
        isinstance(item, Mapping) and isinstance(item.get("text"), str) for item in response
    ):
        return "".join(item["text"] for item in response)
    return _json_text(response)


def _json_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


class _Reader:
    """Walks ``contents`` once, keeping the calls each model turn left unanswered."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self._open: list[tuple[str, str]] = []
        """(id, name) of the calls of the last model turn not answered yet."""
        self._user: list[Mapping[str, Any]] = []

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def content(self, turn: int, content: object) -> None:
        if not isinstance(content, Mapping):
            self.note(f"contents[{turn}] is not an object and is skipped")
            return
        parts = content.get("parts")
        if isinstance(parts, Mapping):
            parts = [parts]
        if not isinstance(parts, list):
            self.note(f"contents[{turn}].parts is not a list and is skipped")
            return
        role = content.get("role")
        if role == "model":
            self._model(turn, parts)
            return
        if role not in (None, "user", "function", "tool"):
            self.note(f"contents[{turn}] has role {role!r}, read as the user's")
        for number, part in enumerate(parts):
            if not isinstance(part, Mapping):
                self.note(f"contents[{turn}].parts[{number}] is not an object and is skipped")
                continue
            response = _get(part, "functionResponse", "function_response")
            if response is not None:
                self._flush_user()
                self._response(turn, number, response)
            else:
                self._user.append(part)
        self._flush_user()

    def _model(self, turn: int, parts: list[Any]) -> None:
        self._flush_user()
        text: list[str] = []
        thoughts: list[str] = []
        calls: list[dict[str, Any]] = []
        for number, part in enumerate(parts):
            if not isinstance(part, Mapping):
                self.note(f"contents[{turn}].parts[{number}] is not an object and is skipped")
                continue
            call = _get(part, "functionCall", "function_call")
            if call is not None:
                self._call(turn, number, call, calls)
            elif isinstance(part.get("text"), str):
                (thoughts if part.get("thought") is True else text).append(part["text"])
            elif _get(part, "executableCode", "executable_code") is not None:
                self.note("an earlier model turn ran code on the provider (executableCode)")
        message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
        if thoughts:
            message["reasoning_content"] = "".join(thoughts)
        if calls:
            message["tool_calls"] = calls
        self.messages.append(message)
        self._open = [(call["id"], call["function"]["name"]) for call in calls]

    def _call(self, turn: int, number: int, call: object, calls: list[dict[str, Any]]) -> None:
        where = f"contents[{turn}].parts[{number}]"
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            self.note(f"{where} is a functionCall without a name and is skipped")
            return
        name, own, args = call["name"], call.get("id"), call.get("args")
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            self.note(f"{where} has functionCall args that are not an object")
        call_id = own if isinstance(own, str) and own else f"{name}-{turn}-{len(calls)}"
        function = {"name": name, "arguments": _json_text(args)}
        calls.append({"id": call_id, "type": "function", "function": function})

    def _response(self, turn: int, number: int, response: object) -> None:
        if not isinstance(response, Mapping):
            self.note(f"contents[{turn}].parts[{number}] is a functionResponse of the wrong type")
            return
        name = response.get("name")
        name = name if isinstance(name, str) else ""
        own = response.get("id")
        if isinstance(own, str) and own:
            call_id = own
            self._open = [item for item in self._open if item[0] != own]
        else:
            found = next((item for item in self._open if item[1] == name), None)
            if found is None:
                call_id = f"{name}-{turn}-{number}"
                self.note(f"contents[{turn}].parts[{number}] answers no earlier call of {name!r}")
            else:
                call_id = found[0]
                self._open.remove(found)
        if response.get("parts") is not None:
            self.note("a functionResponse carries media parts, which are not replayed")
        self.messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": _tool_content(response.get("response")),
            }
        )

    def _flush_user(self) -> None:
        parts, self._user = self._user, []
        if not parts:
            return
        content: list[dict[str, Any]] = []
        for part in parts:
            if isinstance(part.get("text"), str):
                content.append({"type": "text", "text": part["text"]})
                continue
            media = self._media(part)
            if media is not None:
                content.append(media)
        if all(item["type"] == "text" for item in content):
            self.messages.append(
                {"role": "user", "content": "".join(item["text"] for item in content)}
            )
        else:
            self.messages.append({"role": "user", "content": content})

    def _media(self, part: Mapping[str, Any]) -> dict[str, Any] | None:
        inline = _get(part, "inlineData", "inline_data")
        stored = _get(part, "fileData", "file_data")
        source = inline if isinstance(inline, Mapping) else stored
        if not isinstance(source, Mapping):
            keys = ", ".join(sorted(str(key) for key in part)) or "nothing"
            self.note(f"a user part holding {keys} is not replayed")
            return None
        mime = _get(source, "mimeType", "mime_type")
        mime = mime if isinstance(mime, str) else "application/octet-stream"
        kind = "inlineData" if source is inline else "fileData"
        self.note(f"the user sent {mime} media ({kind})")
        if not mime.startswith("image/"):
            return None
        if source is inline:
            data = source.get("data")
            url = f"data:{mime};base64,{data}" if isinstance(data, str) else None
        else:
            uri = _get(source, "fileUri", "file_uri")
            url = uri if isinstance(uri, str) else None
        return {"type": "image_url", "image_url": {"url": url}} if url else None


def read_request(url: str, body: Mapping[str, Any]) -> ChatRequest:
    """The request in chat-completions terms (see the module doc); never raises."""
    reader = _Reader()
    system = _get(body, "systemInstruction", "system_instruction")
    if system is not None:
        text = _text_of(system)
        if text is None:
            reader.note("systemInstruction is neither text nor a content and is skipped")
        elif text:
            reader.messages.append({"role": "system", "content": text})
    contents = body.get("contents")
    if isinstance(contents, Mapping):
        contents = [contents]
    if isinstance(contents, list):
        for turn, content in enumerate(contents):
            reader.content(turn, content)
    elif contents is not None:
        reader.note(f"contents is not a list and is skipped: {type(contents).__name__}")
    tools = read_tools(body.get("tools"))
    return ChatRequest(
        model=model_of(url),
        messages=reader.messages,
        tools=tools.client,
        settings={key: value for key, value in body.items() if key not in _READ},
        stream=streams(url),
        server_tools=tuple(tools.server),
        notes=tuple(tools.notes + reader.notes),
    )

"""A stock vcrpy cassette (JSON, version 1) of one chat-completions exchange: the request
declares one tool with the given parameter schema and the response calls it with the
given argument text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def tool_call_cassette(
    path: Path, parameters: object, arguments: str, *, tool: str = "lookup"
) -> Path:
    """Write the cassette to ``path`` and return ``path``."""
    tools = [
        {
            "type": "function",
            "function": {"name": tool, "description": "look it up", "parameters": parameters},
        }
    ]
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    call = {"id": "c1", "type": "function", "function": {"name": tool, "arguments": arguments}}
    message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
    response = {
        "id": "r1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
    }
    interaction = {
        "request": {
            "body": json.dumps(request),
            "headers": {"content-type": ["application/json"]},
            "method": "POST",
            "uri": "https://api.openai.com/v1/chat/completions",
        },
        "response": {
            "body": {"string": json.dumps(response)},
            "headers": {"Content-Type": ["application/json"]},
            "status": {"code": 200, "message": "OK"},
        },
    }
    path.write_text(json.dumps({"interactions": [interaction], "version": 1}), encoding="utf-8")
    return path

"""`chat_exchange`: one recorded chat-completions call, as a stock vcrpy interaction."""

from __future__ import annotations

import json
from typing import Any


def chat_exchange(request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    """A ``POST`` of ``request`` to a chat-completions endpoint answered 200 with
    ``response`` as JSON, as vcrpy writes an interaction."""
    return {
        "request": {
            "method": "POST",
            "uri": "https://api.example.test/v1/chat/completions",
            "body": json.dumps(request),
            "headers": {},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": ["application/json"]},
            "body": {"string": json.dumps(response)},
        },
    }

"""A recorded response as vcrpy hands it over (``status``, ``headers`` of lists,
``body.string``), read the same way wherever the proxy reads one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["body_of", "header_list", "status_of", "streamed"]


def status_of(response: Mapping[str, Any]) -> int:
    """The response's status code (200 when the recording names none)."""
    status = response.get("status") or {}
    return int(status.get("code", 200)) if isinstance(status, Mapping) else 200


def header_list(response: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The response's headers as ``(name, value)`` pairs, a repeated header once per value."""
    pairs: list[tuple[str, str]] = []
    for name, values in (response.get("headers") or {}).items():
        for value in values if isinstance(values, list | tuple) else [values]:
            pairs.append((str(name), str(value)))
    return pairs


def body_of(response: Mapping[str, Any]) -> bytes:
    """The response's body bytes."""
    given = (response.get("body") or {}).get("string") or b""
    return given.encode("utf-8") if isinstance(given, str) else bytes(given)


def streamed(headers: list[tuple[str, str]]) -> bool:
    """Whether ``headers`` name an event-stream body."""
    return any(
        name.lower() == "content-type" and "text/event-stream" in value.lower()
        for name, value in headers
    )

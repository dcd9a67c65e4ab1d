"""Gemini tool declarations in chat-completions terms.

``tools`` is a list of entries; an entry's ``functionDeclarations``
(``function_declarations``) are client tools, every other key of an entry
(``googleSearch``, ``codeExecution``, ``urlContext``...) a tool the provider runs itself.
A declaration's ``parametersJsonSchema`` (``parameters_json_schema``) is JSON Schema
already; its ``parameters`` is Gemini's OpenAPI subset, whose ``type`` names are upper
case (``OBJECT``, ``STRING``...) and whose ``nullable: true`` marks a value that may be
null: the names are lowered and ``nullable`` becomes a ``"null"`` type, through
``properties``, ``items``, ``anyOf`` and ``prefixItems``; every other keyword stays. A
declaration without parameters takes an empty object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DeclaredTools", "json_schema_of", "read_tools"]


def json_schema_of(schema: object) -> object:
    """An OpenAPI-subset schema as JSON Schema (see the module doc); other values as
    they are."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            out[key] = value.lower()
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: json_schema_of(item) for name, item in value.items()}
        elif key == "items":
            out[key] = json_schema_of(value)
        elif key in ("anyOf", "prefixItems") and isinstance(value, list):
            out[key] = [json_schema_of(item) for item in value]
        elif key != "nullable":
            out[key] = value
    if schema.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif "anyOf" in out and isinstance(out["anyOf"], list):
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    elif "nullable" in schema:
        out["nullable"] = schema["nullable"]
    return out


@dataclass
class DeclaredTools:
    """The tools one request declares."""

    client: list[dict[str, Any]] = field(default_factory=list)
    server: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _declaration(item: object, tools: DeclaredTools) -> None:
    if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
        tools.notes.append(f"function declaration without a name is skipped: {item!r:.120}")
        return
    function: dict[str, Any] = {"name": item["name"]}
    description = item.get("description")
    if isinstance(description, str):
        function["description"] = description
    schema = item.get("parametersJsonSchema", item.get("parameters_json_schema"))
    if schema is None:
        schema = json_schema_of(item.get("parameters"))
    function["parameters"] = {"type": "object", "properties": {}} if schema is None else schema
    tools.client.append({"type": "function", "function": function})


def read_tools(declared: object) -> DeclaredTools:
    """The client and server tools of a request's ``tools`` value."""
    tools = DeclaredTools()
    if declared is None:
        return tools
    if not isinstance(declared, list):
        tools.notes.append(f"tools is not a list and is ignored: {type(declared).__name__}")
        return tools
    for entry in declared:
        if not isinstance(entry, Mapping):
            tools.notes.append(f"tool entry is not an object: {entry!r:.120}")
            continue
        for key, value in entry.items():
            if key in ("functionDeclarations", "function_declarations"):
                if isinstance(value, list):
                    for item in value:
                        _declaration(item, tools)
                else:
                    tools.notes.append(f"{key} is not a list and is ignored")
            elif key not in tools.server:
                tools.server.append(str(key))
    return tools

"""An MCP server with one tool per way a server can mishandle bad arguments.

Every tool takes the same arguments (`SCHEMA`) and answers valid ones alike; they
differ in what they do with arguments the schema refuses:

- ``checked`` answers a tool result with ``isError: true`` naming the property;
- ``lenient`` runs anyway;
- ``vague`` answers ``isError: true`` with a text that names nothing;
- ``protocol`` answers a JSON-RPC error (invalid params);
- ``raises`` raises an exception in its handler;
- ``crashes`` ends the server process;
- ``hangs`` never answers.

``--only NAME`` (repeatable) lists only those tools. ``--schemas FILE`` lists instead
one ``checked`` tool per line of a tool-schema corpus file, named after the line's tool
and id, refusing what the line's JSON Schema draft refuses. ``--child FILE`` starts a
process that outlives the server unless its process group is stopped, and writes its
pid to FILE. ``--http PORT`` serves Streamable HTTP on 127.0.0.1 instead of stdio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

import anyio
import jsonschema
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1, "maxLength": 20},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "units": {"enum": ["metric", "imperial"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}

TOOLS = ("checked", "lenient", "vague", "protocol", "raises", "crashes", "hangs")


def _validator(schema: Any) -> Any:
    return jsonschema.validators.validator_for(schema)(schema)


_VALIDATORS: dict[str, Any] = {name: _validator(SCHEMA) for name in TOOLS}
_SCHEMAS: dict[str, Any] = dict.fromkeys(TOOLS, SCHEMA)


def _text(text: str, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


def _problem(name: str, arguments: dict[str, Any]) -> str | None:
    error = next(iter(_VALIDATORS[name].iter_errors(arguments)), None)
    if error is None:
        return None
    return f"invalid arguments at {error.json_path}: {error.message}"


async def _answer(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    problem = _problem(name, arguments)
    if problem is None or name == "lenient":
        return _text(f"forecast for {arguments.get('city')!r}: sunny")
    if name == "checked" or name not in TOOLS:
        return _text(problem, error=True)
    if name == "vague":
        return _text("something went wrong", error=True)
    if name == "protocol":
        raise MCPError(code=types.INVALID_PARAMS, message=problem)
    if name == "raises":
        raise RuntimeError("unhandled")
    if name == "crashes":
        os._exit(3)
    await anyio.sleep_forever()
    raise AssertionError("unreachable")


def _corpus(path: str) -> list[str]:
    names = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            name = f"{row['tool']}.{row['id'].rsplit(':', 1)[-1]}"[-128:]
            _SCHEMAS[name] = row["schema"]
            try:
                _VALIDATORS[name] = _validator(row["schema"])
            except Exception:  # a schema no validator takes: every call is refused
                _VALIDATORS[name] = _validator(False)
            names.append(name)
    return names


def build(only: list[str], schemas: str | None = None) -> Server[Any]:
    names = _corpus(schemas) if schemas else [name for name in TOOLS if not only or name in only]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=f"{name} forecast", input_schema=_SCHEMAS[name])
                for name in names
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in names:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {params.name}")
        return await _answer(params.name, dict(params.arguments or {}))

    return Server("faulty-forecast", on_list_tools=list_tools, on_call_tool=call_tool)


async def _stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--schemas", default=None)
    parser.add_argument("--child", default=None)
    parser.add_argument("--http", type=int, default=None)
    args = parser.parse_args()
    if args.child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        with open(args.child, "w", encoding="utf-8") as out:
            out.write(str(child.pid))
    server = build(args.only, args.schemas)
    if args.http is None:
        anyio.run(_stdio, server)
        return
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning")


if __name__ == "__main__":
    main()

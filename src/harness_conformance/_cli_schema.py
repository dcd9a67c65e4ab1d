"""The ``validate`` command: the messages a model is sent for tool-call arguments."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ._cli_output import UsageError
from .errors import SchemaError
from .schema import Spec, from_json_schema, parse_arguments, spec_from_dict, validate_args

__all__ = ["add_validate", "load_spec", "read_json"]


def read_json(path: Path, what: str) -> Any:
    """Parse a JSON file, failing with the file, line and column of a syntax error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{what} {path} does not exist: check the path") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{what} {path} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None


def load_spec(path: Path, *, dsl: bool) -> Spec:
    """A spec from a JSON Schema file, an OpenAI tool entry, or (``dsl``) the plain-dict form."""
    data = read_json(path, "schema file")
    if not dsl and isinstance(data, dict) and data.get("type") == "function":
        function = data.get("function")
        data = function.get("parameters", {}) if isinstance(function, dict) else data
    try:
        return spec_from_dict(data) if dsl else from_json_schema(data)
    except SchemaError as exc:
        raise UsageError(f"schema file {path}: {exc}") from None


def _run_validate(args: argparse.Namespace) -> int:
    spec = load_spec(Path(args.schema), dsl=args.dsl)
    texts: list[tuple[str, str]] = []
    for item in args.arguments:
        if item.startswith("@"):
            path = Path(item[1:])
            try:
                texts.append((item, path.read_text(encoding="utf-8")))
            except OSError as exc:
                raise UsageError(f"cannot read arguments file {path}: {exc.strerror}") from None
        else:
            texts.append((item, item))
    if args.jsonl:
        path = Path(args.jsonl)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror}") from None
        texts.extend((f"{path}:{n}", line) for n, line in enumerate(lines, 1) if line.strip())
    if not texts:
        raise UsageError("give tool-call arguments as JSON text, @FILE, or --jsonl FILE")
    failed = 0
    for name, text in texts:
        messages = validate_args(spec, parse_arguments(text))
        if messages:
            failed += 1
            print(f"{name}: {len(messages)} violation{'s' if len(messages) != 1 else ''}")
            for message in messages:
                print(f"  {message}")
        else:
            print(f"{name}: ok")
    print(f"{len(texts) - failed} passed, {failed} failed")
    return 1 if failed else 0


def add_validate(commands: Any) -> None:
    parser = commands.add_parser(
        "validate",
        help="check tool-call arguments against a schema",
        description="Print the messages a model would be sent for each set of arguments.",
    )
    parser.add_argument("schema", help="JSON Schema file (or OpenAI tool entry) of the parameters")
    parser.add_argument("arguments", nargs="*", help="argument JSON text, or @FILE")
    parser.add_argument("--jsonl", metavar="FILE", help="one argument text per line")
    parser.add_argument(
        "--dsl", action="store_true", help="the schema file is the plain-dict DSL form"
    )
    parser.set_defaults(run=_run_validate)

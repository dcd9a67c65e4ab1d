"""The ``validate`` command: the messages a model is sent for tool-call arguments.

Every input is read before anything is printed: the schema file, then each argument
text. Text that is not JSON at all (a syntax error, ``NaN``, nesting too deep to read,
an integer too long to convert, bytes that are not UTF-8) is bad input, reported as one
line naming where it came from, with exit status 2. Only JSON values are validated;
`parse_arguments` keeps its own contract for the library and the wire.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import SchemaError
from ..parsing import JsonTextError, parse_json
from ..schema import Spec, from_json_schema, spec_from_dict, validate_text
from ._output import UsageError

__all__ = ["add_validate", "json_problem", "load_spec", "read_json"]

_SHOWN_NAME = 60
"""Argument texts given on the command line are shortened to this in the output."""


class _Constant(ValueError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"{name} is not JSON")


def _refuse_constant(name: str) -> Any:
    raise _Constant(name)


def json_problem(text: str | bytes) -> tuple[Any, str | None]:
    """The JSON value ``text`` holds and None, or None and what is wrong with the text:
    not JSON (with line and column), not UTF-8, ``NaN`` or an infinity, nested too
    deeply to read, or an integer too long to convert."""
    try:
        return parse_json(text, parse_constant=_refuse_constant), None
    except JsonTextError as exc:
        if exc.problem.startswith("the JSON is nested too deeply"):
            return (
                None,
                "nested too deeply to read (thousands of arrays or objects inside each other)",
            )
        if exc.problem.startswith("not JSON") or exc.line is None:
            return None, exc.problem
        return None, f"line {exc.line}: {exc.problem}"
    except _Constant as exc:
        return None, f"{exc.name} is not JSON (use a number or null)"
    except ValueError:  # an integer beyond the interpreter's int-digits limit
        return None, f"an integer has more than {sys.get_int_max_str_digits()} digits"


def _read_bytes(path: Path, what: str) -> bytes:
    if path.is_dir():
        raise UsageError(f"{what} {path} is a directory; give a file")
    if path.exists() and not path.is_file():
        raise UsageError(f"{what} {path} is not a regular file (a pipe or device); give a file")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{what} {path} does not exist: check the path") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def read_json(path: Path, what: str) -> Any:
    """Parse a JSON file, failing with the file and what is wrong with it (the line and
    column of a syntax error, the line of bytes that are not UTF-8)."""
    value, problem = json_problem(_read_bytes(path, what))
    if problem is None:
        return value
    if problem.startswith("not JSON"):
        raise UsageError(f"{what} {path} is {problem}; fix the file")
    raise UsageError(f"{what} {path}: {problem}; fix the file")


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
    except RecursionError:
        raise UsageError(
            f"schema file {path}: the schema nests too deeply to compile; flatten it"
        ) from None


def _shown(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN_NAME else flat[: _SHOWN_NAME - 3] + "..."


def _texts(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """(name shown, where it came from, text) of every argument text to check."""
    texts: list[tuple[str, str, str]] = []
    for item in args.arguments:
        if item.startswith("@"):
            path = Path(item[1:])
            data = _read_bytes(path, "arguments file")
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = data.count(b"\n", 0, exc.start) + 1
                raise UsageError(
                    f"arguments file {path}, line {line}: the text is not UTF-8 "
                    f"(byte {exc.start}); save it as UTF-8"
                ) from None
            texts.append((item, f"arguments file {path}", text))
        else:
            texts.append((_shown(item), f"arguments {_shown(item)!r}", item))
    if args.jsonl:
        path = Path(args.jsonl)
        data = _read_bytes(path, "file")
        for number, raw in enumerate(data.split(b"\n"), 1):
            try:
                entry = raw.decode("utf-8").removesuffix("\r")
            except UnicodeDecodeError as exc:
                raise UsageError(
                    f"{path}, line {number}: the text is not UTF-8 (byte {exc.start} of the "
                    "line); save the file as UTF-8"
                ) from None
            if entry.strip():
                texts.append((f"{path}:{number}", f"{path}, line {number}", entry))
    return texts


def _run_validate(args: argparse.Namespace) -> int:
    spec = load_spec(Path(args.schema), dsl=args.dsl)
    texts = _texts(args)
    if not texts:
        raise UsageError("give tool-call arguments as JSON text, @FILE, or --jsonl FILE")
    for _, where, text in texts:
        if not text.strip():
            continue  # blank text is the empty object, as `parse_arguments` reads it
        _, problem = json_problem(text)
        if problem is not None:
            raise UsageError(
                f"{where}: {problem}; give the arguments as a JSON object, as the model sends them"
            )
    failed = 0
    for name, _, text in texts:
        messages = validate_text(spec, text)
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

"""The ``mcp`` command: check that an MCP server answers arguments its tools' schemas
refuse as the MCP specification asks.

``harness-conformance mcp [options] -- COMMAND [ARGS...]`` starts the server over stdio
(``--url URL`` speaks Streamable HTTP instead, to a server the command starts or one
already running), in a fresh temporary working directory, and prints a table per kind
of call with a row per tool and a count per verdict, every failing call shrunk with the
command that makes it again, and a totals line. The exit status is 1 when a corruption
was accepted, crashed the server or timed out (with ``--strict``, also when one got a
JSON-RPC error or an error result that names nothing), when a tool could not be checked
or the run did not finish; 2 on bad usage.

Tools can have side effects: by default only arguments the schema refuses are sent.
``--reproduce JSON`` makes one call, in the form a failure prints, and judges it.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..parsing import JsonTextError, parse_json
from ._output import UsageError
from ._report import check_report_path, write_report

__all__ = ["add_mcp"]

_INSTALL = 'install the MCP extra: pip install "harness-conformance[mcp]"'


def add_mcp(commands: Any) -> None:
    parser = commands.add_parser(
        "mcp",
        help="check an MCP server's answers to bad tool arguments",
        description=(
            "Start an MCP server and call its tools with arguments their input schemas "
            "refuse; judge each answer. Tools can have side effects: only bad arguments "
            "are sent unless --call says otherwise."
        ),
    )
    parser.add_argument("server", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")
    parser.add_argument("--url", help="speak Streamable HTTP to this URL (http://...)")
    parser.add_argument(
        "--cwd", metavar="DIR", help="run the server here (default: a fresh temporary directory)"
    )
    parser.add_argument(
        "--examples", type=_positive, default=20, metavar="N", help="calls per tool (20)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="seed of the drawn arguments (0)"
    )
    parser.add_argument(
        "--tools", action="append", default=None, metavar="NAME[,NAME]", help="only these"
    )
    parser.add_argument(
        "--skip-tools", action="append", default=[], metavar="NAME[,NAME]", help="not these"
    )
    parser.add_argument(
        "--call",
        choices=("corrupt", "valid", "both"),
        default="corrupt",
        help="which arguments to send: refused ones (default), accepted ones, or both",
    )
    parser.add_argument(
        "--timeout", type=_seconds, metavar="S", default=10.0, help="seconds one call may take (10)"
    )
    parser.add_argument(
        "--start-timeout", type=_seconds, metavar="S", default=30.0, help="seconds to start (30)"
    )
    parser.add_argument(
        "--run-timeout",
        type=_seconds,
        metavar="S",
        default=600.0,
        help="seconds the whole run may take",
    )
    parser.add_argument(
        "--shrink-timeout",
        type=_seconds,
        metavar="S",
        default=30.0,
        help="seconds to shrink a failure",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="also fail JSON-RPC errors and error results that do not name the property",
    )
    parser.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE", help="for the server"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    parser.add_argument("--reproduce", metavar="JSON", help="make one call a failure printed")
    parser.set_defaults(run=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def _names(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def _server(args: argparse.Namespace) -> Any:
    from ..mcp import McpServer

    command = list(args.server)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command and args.url is None:
        raise UsageError("give the server's command after --, or its URL with --url")
    env: dict[str, str] = {}
    for item in args.env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--env {item!r}: write NAME=VALUE")
        env[name] = value
    cwd = Path(args.cwd) if args.cwd is not None else None
    if cwd is not None and not cwd.is_dir():
        raise UsageError(f"--cwd {args.cwd}: not a directory")
    try:
        return McpServer(command=tuple(command), url=args.url, env=env, cwd=cwd)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


@contextmanager
def _terminated_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the run as Ctrl-C does, so the server is stopped on the way out."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(args: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError(f"the official MCP SDK is not installed; {_INSTALL}") from None
    server = _server(args)
    report_path = check_report_path(args.json)
    with _terminated_as_interrupt():
        if args.reproduce is not None:
            return _reproduce(args, server)
        return _check(args, server, report_path)


def _check(args: argparse.Namespace, server: Any, report_path: Path | None) -> int:
    from ..mcp import check_server, render_report

    def progress(tool: str, call: str, verdict: str) -> None:
        print(f"{tool}: {call} {verdict}", file=sys.stderr, flush=True)

    report = check_server(
        server,
        examples=args.examples,
        seed=args.seed,
        tools=_names(args.tools),
        skip_tools=_names(args.skip_tools) or (),
        call=args.call,
        strict=args.strict,
        call_timeout=args.timeout,
        start_timeout=args.start_timeout,
        run_timeout=args.run_timeout,
        shrink_timeout=args.shrink_timeout,
        on_call=progress if sys.stderr.isatty() else None,
    )
    print(render_report(report))
    if report_path is not None:
        write_report(report_path, report.as_json())
    return 1 if report.failed else 0


def _example(text: str) -> tuple[str, dict[str, Any], str | None]:
    retry = "give the JSON object a failure prints after --reproduce"
    try:
        example = parse_json(text)
    except JsonTextError as exc:
        raise UsageError(f"--reproduce: not JSON ({exc}); {retry}") from None
    tool = example.get("tool") if isinstance(example, dict) else None
    arguments = example.get("arguments") if isinstance(example, dict) else None
    path = example.get("path") if isinstance(example, dict) else None
    if not isinstance(tool, str) or not isinstance(arguments, dict):
        raise UsageError(f"--reproduce: needs a string 'tool' and an object 'arguments'; {retry}")
    if path is not None and not isinstance(path, str):
        raise UsageError(f"--reproduce: 'path' must be a string; {retry}")
    return tool, arguments, path


def _reproduce(args: argparse.Namespace, server: Any) -> int:
    from ..mcp import Connection, ServerUnavailable, failing, judge

    tool, arguments, path = _example(args.reproduce)
    with Connection(server, call_timeout=args.timeout, start_timeout=args.start_timeout) as link:
        try:
            listed = {t.name for t in link.open()}
        except ServerUnavailable as exc:
            print(f"stopped: {exc}")
            return 1
        if tool not in listed:
            print(f"{tool}: not listed by the server")
            return 1
        reply = link.call(tool, arguments)
    verdict = judge(reply, path)
    call = "valid" if path is None else "corrupt"
    print(f"{tool}: {verdict} ({call} arguments{f' changed at {path}' if path else ''})")
    print(f"  answer: {reply.text or '(empty)'}")
    return 1 if failing(verdict, strict=args.strict) else 0

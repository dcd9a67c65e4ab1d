"""The ``harness-conformance`` command line (also ``python -m harness_conformance``).

Each command lives in its own module of this package with an ``add_*`` function that
registers its parser and sets ``run``; ``run(args)`` returns the exit status. Bad
input raises `UsageError`, printed as one line naming the command, the file and what
to do, with exit status 2.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .._version import __version__
from ..redaction import Redactor, Secret, declared_secrets
from . import (
    _check_log,
    _conformance,
    _fuzz,
    _mcp,
    _merge,
    _proxy,
    _record,
    _reenact,
    _replay,
    _show,
    _validate,
)
from ._output import UsageError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness-conformance",
        description="Check tool arguments, session logs and cassettes of LLM agent harnesses.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _replay.add_replay(commands)
    _record.add_record(commands)
    _check_log.add_check_log(commands)
    _reenact.add_reenact(commands)
    _validate.add_validate(commands)
    _show.add_show(commands)
    _conformance.add_conformance(commands)
    _fuzz.add_fuzz(commands)
    _proxy.add_proxy(commands)
    _mcp.add_mcp(commands)
    _merge.add_merge(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status is 0 when everything checked passed.

    Output that cannot be written (a closed pipe, a full disk) ends the command with one
    line on standard error and status 2; a reader that closed the pipe early, as
    ``head`` does, gets no complaint. An interruption (Ctrl-C) ends it with one line and
    status 130. Text the output's encoding cannot carry is written as backslash escapes.
    A declared API key (the variables `declared_secrets` reads, and ``record``'s
    ``--api-key-env``) never reaches the output: it is written as ``<redacted>``.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    errors = _tolerant(sys.stdout)
    streams = sys.stdout, sys.stderr
    redactor = Redactor(declared_secrets(_named_key(args)))
    if redactor.secrets:
        sys.stdout, sys.stderr = (_Redacting(stream, redactor) for stream in streams)
    try:
        status = int(args.run(args))
        sys.stdout.flush()
    except UsageError as exc:
        print(f"harness-conformance {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        _silence_stdout()
        return 2
    except KeyboardInterrupt:
        print(f"harness-conformance {args.command}: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.filename is None:  # writing to standard output failed
            _silence_stdout()
            problem = f"cannot write the output: {reason}"
        else:
            problem = f"{exc.filename}: {reason}; check the path and its permissions"
        print(f"harness-conformance {args.command}: {problem}", file=sys.stderr)
        return 2
    finally:
        sys.stdout, sys.stderr = streams
        if errors is not None and isinstance(sys.stdout, io.TextIOWrapper):
            sys.stdout.reconfigure(errors=errors)
    return status


def _named_key(args: argparse.Namespace) -> list[Secret]:
    """The key of the variable a command was told to read (``record --api-key-env``)."""
    name = getattr(args, "api_key_env", None)
    value = os.environ.get(name, "") if isinstance(name, str) else ""
    return [Secret(value)] if value else []


class _Redacting:
    """A text stream that writes through ``redactor``; everything else is the stream's."""

    def __init__(self, stream: TextIO, redactor: Redactor) -> None:
        self._stream, self._redactor = stream, redactor

    def write(self, text: str) -> int:
        self._stream.write(self._redactor.text(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _tolerant(stream: object) -> str | None:
    """Make ``stream`` write what it cannot encode as backslash escapes, as standard error
    does: a lone surrogate in a recorded text, or a file name that is not UTF-8, is shown
    as ``\\udcff`` instead of ending the command. Returns the previous setting."""
    if not isinstance(stream, io.TextIOWrapper):
        return None
    previous = stream.errors
    stream.reconfigure(errors="backslashreplace")
    return previous


def _silence_stdout() -> None:
    """Point standard output at the null device, so the interpreter's flush at exit does
    not fail again on what could not be written."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # no file descriptor behind sys.stdout (captured)
        pass

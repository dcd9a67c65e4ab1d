"""The ``harness-conformance`` command line (also ``python -m harness_conformance``).

Each command lives in its own ``_cli_*`` module with an ``add_*`` function that
registers its parser and sets ``run``; ``run(args)`` returns the exit status. Bad
input raises `UsageError`, printed as one line naming the command, the file and what
to do, with exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import (
    __version__,
    _cli_conformance,
    _cli_log,
    _cli_record,
    _cli_replay,
    _cli_schema,
    _cli_show,
)
from ._cli_output import UsageError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness-conformance",
        description="Check tool arguments, session logs and cassettes of LLM agent harnesses.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _cli_replay.add_replay(commands)
    _cli_record.add_record(commands)
    _cli_log.add_check_log(commands)
    _cli_schema.add_validate(commands)
    _cli_show.add_show(commands)
    _cli_conformance.add_conformance(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status is 0 when everything checked passed."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except UsageError as exc:
        print(f"harness-conformance {args.command}: {exc}", file=sys.stderr)
        return 2

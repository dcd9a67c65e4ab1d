"""The ``harness-conformance`` command line (also ``python -m harness_conformance``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import _cli_schema

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness-conformance",
        description="Check tool arguments, session logs and cassettes of LLM agent harnesses.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _cli_schema.add_validate(commands)
    _cli_schema.add_conformance(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status is 0 when everything checked passed."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except _cli_schema.UsageError as exc:
        print(f"harness-conformance {args.command}: {exc}", file=sys.stderr)
        return 2

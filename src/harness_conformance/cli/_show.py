"""The ``show`` command: the timeline of a cassette or a session log.

``harness-conformance show PATH [--html FILE] [--invariants {seed,strict}] [--session N]``

A ``*.jsonl`` path is read as a session log and checked with `check_log`; anything
else is replayed as a cassette with `replay_foreign`. The timeline goes to standard
output as text; with ``--html`` it is written to FILE as one self-contained page
(written atomically) and standard output gets the totals. Like ``check-log``, ``show``
is a check: the exit status is 1 when the shown sessions break an invariant, 0 when
they do not, and 2 for bad input. No output shows a declared key (the values of
``DEEPSEEK_API_KEY`` and ``OPENAI_API_KEY``): each is replaced with ``<redacted>``.
"""

from __future__ import annotations

import argparse
from html import escape
from pathlib import Path
from typing import Any

from ..cassettes import replay_foreign, write_atomically
from ..errors import CassetteError
from ..events import CompressedLogError, SessionLogError, is_log_name, read_session_log
from ..invariants import check_log
from ..redaction import REDACTED, Redactor, declared_secrets
from ._output import UsageError
from ._report import refuse_input, unreadable
from .timeline._html import render_html
from .timeline._model import Timeline
from .timeline._sessions import timeline_of_log, timeline_of_replay
from .timeline._text import render_text, totals_line

__all__ = ["add_show", "load_timeline"]


def load_timeline(path: Path, profile: str) -> Timeline:
    """Read and check ``path``; raises `UsageError` naming the file when it cannot."""
    if path.is_symlink() and not path.exists():
        raise UsageError(
            f"{path}: a symbolic link that leads nowhere (a loop, or a missing target); "
            "fix or remove the link"
        )
    if not path.exists():
        raise UsageError(
            f"{path}: no such file; give a cassette (.yaml, .json) or a session log (.jsonl)"
        )
    if not path.is_file():
        raise UsageError(f"{path}: not a file; give a cassette or a session log")
    try:
        if is_log_name(path.name):
            log = read_session_log(path)
            return timeline_of_log(log, check_log(log, profile), profile, path)
        return timeline_of_replay(replay_foreign(path, profile=profile), profile)
    except (CassetteError, SessionLogError, CompressedLogError) as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    except Exception as exc:  # the last line of defence: one line, never a traceback
        raise UsageError(unreadable(path, exc)) from None


def _select(timeline: Timeline, number: int | None) -> None:
    if number is None:
        return
    if not 1 <= number <= timeline.total_sessions:
        raise UsageError(
            f"{timeline.source}: --session {number} is out of range; "
            f"it holds {timeline.total_sessions} session(s), numbered from 1"
        )
    timeline.sessions = [s for s in timeline.sessions if s.number == number]


def _run(args: argparse.Namespace) -> int:
    timeline = load_timeline(Path(args.path), args.invariants)
    _select(timeline, args.session)
    # The timeline's events are scrubbed already; this pass catches what the checks
    # and the replay wrote around them (violation messages, notes, prompts).
    secrets = declared_secrets()
    if args.html is None:
        print(Redactor(secrets).text(render_text(timeline)), end="")
    else:
        target = Path(args.html)
        refuse_input(target, "--html", [args.path])
        if not target.parent.is_dir():
            raise UsageError(f"{target}: the folder {target.parent} does not exist; create it")
        if target.exists() and not target.is_file():
            raise UsageError(
                f"{target}: not a regular file (a folder, device or pipe); name a file"
            )
        page = Redactor(secrets, escape(REDACTED)).text(render_html(timeline))
        page = page.encode("utf-8", "backslashreplace").decode("utf-8")  # lone surrogates
        try:
            write_atomically(target, page)
        except OSError as exc:
            raise UsageError(f"{target}: cannot be written ({exc.strerror or exc})") from exc
        totals = f"{timeline.kind} {timeline.source}: {totals_line(timeline.totals())}"
        print(Redactor(secrets).text(totals))
        print(f"wrote {target} ({len(page.encode('utf-8'))} bytes)")
    return 1 if timeline.totals().violations else 0


def _session_number(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a session number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("sessions are numbered from 1")
    return number


def add_show(commands: Any) -> None:
    parser = commands.add_parser(
        "show",
        help="show the timeline of a cassette or session log",
        description=(
            "Print the turns, steps, tool calls, errors and invariant violations of a "
            "cassette (replayed through the loop) or a session log (*.jsonl). Exit status "
            "1 when an invariant is broken."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="a cassette or a session log (*.jsonl)")
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="write one self-contained HTML page to FILE instead of printing the timeline",
    )
    parser.add_argument(
        "--invariants",
        choices=("seed", "strict"),
        default="strict",
        help="the invariants profile to check with (default: strict)",
    )
    parser.add_argument(
        "--session",
        type=_session_number,
        metavar="N",
        help="show only session N (numbered from 1)",
    )
    parser.set_defaults(run=_run)

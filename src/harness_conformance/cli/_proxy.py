"""The ``proxy`` command: a cassette served on 127.0.0.1 for clients in any process or
language, recorded from an upstream API or replayed with none.

The first line on standard output is the proxy's base URL, alone, so a script can read
it; what the proxy is doing goes to standard error, one line per miss as it happens.
The proxy runs until it is interrupted (Ctrl-C, SIGTERM); it then closes the cassette
(saving what it recorded), prints what it served, recorded and missed, writes the
``--json`` report, and exits 1 when a request missed, recorded interactions went
unplayed, an exchange broke off or the cassette could not be saved, else 0.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._output import UsageError, plural
from ._report import check_report_path, write_report

if TYPE_CHECKING:
    from ..errors import CassetteError
    from ..proxy import ProxyReport

__all__ = ["add_proxy", "render_proxy_report"]

REPORT_VERSION = 1
"""The version of the ``--json`` report's layout."""


def add_proxy(commands: Any) -> None:
    from ..cassettes import MODES

    parser = commands.add_parser(
        "proxy",
        help="serve a cassette over HTTP on 127.0.0.1, recording from an upstream API",
        description=(
            "Serve CASSETTE on 127.0.0.1 to HTTP clients in any process or language: "
            "replay it (record mode none, the default), or record "
            "what it cannot answer by forwarding it to --upstream and passing the reply "
            "on as it arrives. Matching, misses and unplayed interactions follow the "
            "pytest plugin's rules."
        ),
    )
    parser.add_argument("cassette", metavar="CASSETTE", help="the cassette file")
    parser.add_argument(
        "--upstream",
        metavar="URL",
        help="the API's base URL the proxy stands in front of; a request's path is appended "
        "to it (default: the origin of the cassette's first request)",
    )
    parser.add_argument(
        "--record-mode",
        choices=MODES,
        default=None,
        help="none (replay only, the default), once, new_episodes, all or rewrite, as the "
        "plugin's --hc-record-mode",
    )
    parser.add_argument(
        "--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free port)"
    )
    parser.add_argument(
        "--volatile",
        action="append",
        default=[],
        metavar="PATH",
        help="a request body path left out of matching (repeatable), e.g. metadata.session",
    )
    parser.add_argument(
        "--allow-unused",
        metavar="REASON",
        help="why recorded interactions may stay unplayed (otherwise a replay that leaves "
        "some unplayed fails with CASSETTE_UNUSED)",
    )
    parser.add_argument(
        "--secret-env",
        action="append",
        default=[],
        metavar="NAME",
        help="an environment variable holding a secret to scrub from the recording "
        "(repeatable; the usual API key variables are always read)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait on the upstream at a time (default 300)",
    )
    parser.add_argument(
        "--pace",
        choices=("fast", "recorded"),
        default="fast",
        help="fast (default) sends a replayed answer at once; recorded sends each event as "
        "long after the request as it arrived when it was recorded",
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="KIND[:ARGS]",
        help="while replaying, serve a chaos fault in place of a recorded answer (repeatable): "
        "status:429, status:503,retry-after=2, reset-before-body, reset-during-body, stall, "
        "truncated:done, malformed-event, keep-alive-flood:lines=50; any takes "
        "interaction=N and at=N, else they are drawn from --seed",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the seed the faults' unnamed places are drawn from"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    parser.set_defaults(run=_run)


def _stopper() -> threading.Event:
    """An event set by SIGINT or SIGTERM, which no longer raise."""
    stop = threading.Event()

    def handle(number: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGINT, handle)
    signal.signal(signal.SIGTERM, handle)
    return stop


def _first_line(error: CassetteError) -> str:
    return f"{error.code}: {str(error).splitlines()[0]}"


def render_proxy_report(report: ProxyReport) -> list[str]:
    """The lines the command prints when the proxy stops."""
    misses = plural(len(report.misses), "miss", "misses")
    lines = [
        f"{report.cassette}: {plural(report.served, 'request')} replayed, "
        f"{plural(report.recorded, 'exchange')} recorded, {misses}"
    ]
    for number, miss in enumerate(report.misses, 1):
        lines.append(f"miss {number} ({miss.code}):")
        lines += [f"  {line}" for line in str(miss).splitlines()]
    for problem in (report.unused, report.closing):
        if problem is not None:
            lines.append(f"{problem.code}:")
            lines += [f"  {line}" for line in str(problem).splitlines()]
    lines += [f"broken: {broken}" for broken in report.broken]
    for fault in report.faults:
        served = "served" if fault in report.faulted else "not served (never asked for)"
        lines.append(f"fault {fault.label} on interaction {fault.interaction}: {served}")
    lines.append("ok" if report.ok else "FAIL")
    return lines


def _run(args: Any) -> int:
    from ..cassettes import resolve_mode, write_problem
    from ..proxy import proxy_cassette
    from ..redaction import Secret

    mode = resolve_mode(args.record_mode)
    path = Path(args.cassette)
    report_path = check_report_path(args.json)
    if path.is_dir():
        raise UsageError(f"the cassette {path} is a directory; name a file")
    if mode != "none" and not (mode == "once" and path.is_file()):
        problem = write_problem(path)
        if problem is not None:
            raise UsageError(f"the cassette {path} could not be saved: {problem}")
        if args.upstream is None and not path.is_file():
            raise UsageError(
                f"record mode {mode} records from an upstream API: give its base URL with "
                "--upstream, e.g. --upstream https://api.deepseek.com"
            )
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number (0 to 65535)")
    secrets = []
    for name in args.secret_env:
        value = os.environ.get(name)
        if not value:
            raise UsageError(f"--secret-env {name}: the variable is not set; set it or drop it")
        secrets.append(Secret(value))
    stop = _stopper()

    def missed(error: CassetteError) -> None:
        print(f"miss: {_first_line(error)}", file=sys.stderr, flush=True)

    try:
        with proxy_cassette(
            path,
            upstream=args.upstream,
            mode=mode,
            port=args.port,
            volatile=args.volatile,
            allow_unused=args.allow_unused,
            secrets=secrets,
            timeout=args.timeout,
            on_miss=missed,
            pace=args.pace,
            faults=args.fault,
            seed=args.seed,
        ) as run:
            proxy = run.proxy
            print(proxy.base_url, flush=True)
            doing = "replaying" if proxy.use.replaying else "recording"
            print(
                f"proxy: {doing} {path} (record mode {mode}) in front of {proxy.upstream}; "
                "stop with Ctrl-C",
                file=sys.stderr,
                flush=True,
            )
            stop.wait()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    report = run.report
    assert report is not None
    for line in render_proxy_report(report):
        print(line)
    if report_path is not None:
        write_report(report_path, {"version": REPORT_VERSION, **report.as_json()})
    return 0 if report.ok else 1

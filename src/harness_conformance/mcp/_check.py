"""`check_server`: call each tool of an MCP server with arguments its schema refuses
(and, when asked, with ones it accepts) and judge every answer.

Per tool the ``inputSchema`` is imported (`from_json_schema`); a schema that does not
import is a row with the importer's reason. Corrupted arguments are drawn with
`corruptions` (only those that keep the arguments an object, as ``tools/call`` carries
them), valid ones with `valid_args`. Each kind of call is one Hypothesis run of
``examples`` examples, seeded from ``seed``, the tool and the kind of call, that counts
every verdict. Then each failing verdict found is searched for again with
`hypothesis.find` and shrunk to the simplest arguments that still get it; a search
holds the example database's key of the server, tool, call and verdict, so a database
(the pytest entry passes the profile's) replays earlier findings first.

The whole run is bounded by ``run_timeout`` seconds and every call by the connection's
``call_timeout``; shrinking one finding stops making calls after ``shrink_timeout``.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import SchemaError
from ..schema import Spec, from_json_schema
from ._connection import Connection, ListedTool, Reply, ServerUnavailable
from ._report import CALLS, Finding, McpReport, ToolReport
from ._server import McpServer
from ._verdicts import failing, judge

__all__ = ["OnCall", "check_connection", "check_server"]

OnCall = Callable[[str, str, str], None]
"""Told of every counted call: the tool, the kind of call, the verdict."""


class _OutOfTime(BaseException):
    """The run's time ran out. A BaseException, so that Hypothesis stops at once
    instead of taking it for a failure to shrink."""


class _Unavailable(BaseException):
    """The server could not be started again after a crash or a timeout."""

    def __init__(self, cause: ServerUnavailable) -> None:
        super().__init__(str(cause))


@dataclass(frozen=True)
class _Drawn:
    arguments: dict[str, Any]
    kind: str | None
    path: str | None


@dataclass
class _Plan:
    examples: int
    seed: int
    strict: bool
    deadline: float
    shrink_timeout: float
    database: Any
    key: str
    on_call: OnCall | None


def check_server(
    server: McpServer,
    *,
    call_timeout: float = 10.0,
    start_timeout: float = 30.0,
    **options: Any,
) -> McpReport:
    """Start ``server`` (in its ``cwd``, else a fresh temporary directory), check it
    (see the module), stop it and everything it started, and return the report.

    ``call_timeout`` bounds each call and ``start_timeout`` each start; ``options`` are
    `check_connection`'s: ``examples`` (20), ``seed`` (0), ``tools``, ``skip_tools``,
    ``call`` (``corrupt``, ``valid`` or ``both``), ``strict``, ``run_timeout`` (600 s),
    ``shrink_timeout`` (30 s), ``database`` and ``on_call``."""
    with Connection(server, call_timeout=call_timeout, start_timeout=start_timeout) as link:
        return check_connection(link, **options)


def check_connection(
    link: Connection,
    *,
    examples: int = 20,
    seed: int = 0,
    tools: Iterable[str] | None = None,
    skip_tools: Iterable[str] = (),
    call: str = "corrupt",
    strict: bool = False,
    run_timeout: float = 600.0,
    shrink_timeout: float = 30.0,
    database: Any = None,
    on_call: OnCall | None = None,
    listed: Sequence[ListedTool] | None = None,
) -> McpReport:
    """`check_server` on a `Connection` (opened here unless ``listed`` gives its tools)."""
    if call not in (*CALLS, "both"):
        raise ValueError(f"call must be corrupt, valid or both, not {call!r}")
    started = time.monotonic()
    server = link.server
    report = McpReport(
        server=server.describe(),
        command=server.command,
        url=server.url,
        seed=seed,
        examples=examples,
        call=call,
        strict=strict,
    )
    try:
        listed = link.open() if listed is None else listed
    except ServerUnavailable as exc:
        report.stopped = str(exc)
        report.seconds = time.monotonic() - started
        return report
    plan = _Plan(
        examples=examples,
        seed=seed,
        strict=strict,
        deadline=started + run_timeout,
        shrink_timeout=shrink_timeout,
        database=database,
        key=server.describe(),
        on_call=on_call,
    )
    calls = CALLS if call == "both" else (call,)
    try:
        for tool in _selected(listed, tools, skip_tools, report):
            row = ToolReport(name=tool.name)
            report.tools.append(row)
            _check_tool(link, tool, calls, plan, row)
    except _OutOfTime:
        report.stopped = f"the run's {run_timeout:g} s ran out; later calls were not made"
    except _Unavailable as exc:
        report.stopped = f"the server did not start again: {exc}"
    report.restarts = link.restarts
    report.seconds = time.monotonic() - started
    return report


def _selected(
    listed: Sequence[ListedTool],
    tools: Iterable[str] | None,
    skip: Iterable[str],
    report: McpReport,
) -> list[ListedTool]:
    skipped = set(skip)
    if tools is None:
        return [tool for tool in listed if tool.name not in skipped]
    wanted = list(dict.fromkeys(tools))
    names = {tool.name for tool in listed}
    for name in wanted:
        if name not in names:
            report.tools.append(ToolReport(name=name, problem="not listed by the server"))
    return [tool for tool in listed if tool.name in wanted and tool.name not in skipped]


def _check_tool(
    link: Connection, tool: ListedTool, calls: Sequence[str], plan: _Plan, row: ToolReport
) -> None:
    try:
        spec = from_json_schema(tool.input_schema)
    except SchemaError as exc:
        row.problem = f"the inputSchema does not import: {exc}"
        return
    for kind in calls:
        try:
            strategy = _strategy(spec, kind)
        except Exception as exc:  # a spec the strategies cannot draw from
            row.problem = f"no {kind} arguments can be drawn: {exc}"
            continue
        if strategy is None:
            row.problem = "no corruption applies that keeps the arguments an object"
            continue
        seen = _count(link, tool.name, kind, strategy, plan, row)
        for verdict, drawn in seen.items():
            if failing(verdict, strict=plan.strict):
                row.findings.append(
                    _shrink(link, tool.name, kind, verdict, drawn, strategy, plan, row)
                )


def _strategy(spec: Spec, kind: str) -> Any:
    from ..strategies import corruption_examples, corruptions, valid_args

    if kind == "valid":
        return valid_args(spec).filter(_is_object).map(lambda a: _Drawn(a, None, None))
    kinds = {c.kind for c in corruption_examples(spec) if _is_object(c.args)} - _UNSENDABLE
    if not kinds:
        return None
    drawn = corruptions(spec, kinds=kinds).filter(lambda c: _is_object(c.args))
    return drawn.map(lambda c: _Drawn(c.args, c.kind, c.path))


_UNSENDABLE = frozenset({"non-finite-number"})
"""Corruption kinds JSON cannot carry: NaN and the infinities have no JSON form, and
the SDK would send them as null, a different change."""


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _seed(plan: _Plan, *parts: str) -> int:
    digest = hashlib.sha256(":".join([str(plan.seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _settings(examples: int, database: Any, **more: Any) -> Any:
    from hypothesis import HealthCheck, Verbosity, settings

    return settings(
        **more,
        max_examples=examples,
        database=database,
        deadline=None,
        derandomize=False,
        report_multiple_bugs=False,
        print_blob=False,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
    )


def _make_call(link: Connection, tool: str, drawn: _Drawn, plan: _Plan) -> Reply:
    if time.monotonic() > plan.deadline:
        raise _OutOfTime
    try:
        return link.call(tool, drawn.arguments)
    except ServerUnavailable as exc:
        raise _Unavailable(exc) from exc


def _count(
    link: Connection, tool: str, kind: str, strategy: Any, plan: _Plan, row: ToolReport
) -> dict[str, tuple[_Drawn, Reply]]:
    """Run ``examples`` calls; count the verdicts; the first call of each verdict."""
    from hypothesis import Phase, given
    from hypothesis import seed as seeded

    counts = row.counts.setdefault(kind, {})
    first: dict[str, tuple[_Drawn, Reply]] = {}

    def prop(drawn: _Drawn) -> None:
        reply = _make_call(link, tool, drawn, plan)
        verdict = judge(reply, drawn.path if kind == "corrupt" else None)
        counts[verdict] = counts.get(verdict, 0) + 1
        if drawn.kind is not None:
            row.kinds[drawn.kind] = row.kinds.get(drawn.kind, 0) + 1
        first.setdefault(verdict, (drawn, reply))
        if plan.on_call is not None:
            plan.on_call(tool, kind, verdict)

    counting = _settings(plan.examples, None, phases=(Phase.generate,))
    searched: Any = given(strategy)
    test: Any = seeded(_seed(plan, tool, kind))(counting(searched(prop)))
    test()
    return first


def _shrink(
    link: Connection,
    tool: str,
    kind: str,
    verdict: str,
    found: tuple[_Drawn, Reply],
    strategy: Any,
    plan: _Plan,
    row: ToolReport,
) -> Finding:
    """The simplest arguments that still get ``verdict``: the last ones that got it
    when the search ends early, and those first found when it never gets it again."""
    from hypothesis import find
    from hypothesis.errors import FlakyFailure, NoSuchExample, Unsatisfiable

    stop = time.monotonic() + plan.shrink_timeout
    best: list[tuple[_Drawn, Reply]] = []

    def gets_it(drawn: _Drawn) -> bool:
        if time.monotonic() > stop:
            return False
        row.shrink_calls += 1
        reply = _make_call(link, tool, drawn, plan)
        if judge(reply, drawn.path if kind == "corrupt" else None) != verdict:
            return False
        best[:] = [(drawn, reply)]
        return True

    key = "\0".join((plan.key, tool, kind, verdict)).encode()
    shrunk = False
    try:
        # Hypothesis keeps nothing in the database of a seeded search: with a database
        # the search is left unseeded and starts from what the database holds.
        seeded = None if plan.database is not None else random.Random(_seed(plan, tool, kind))
        find(
            strategy,
            gets_it,
            settings=_settings(plan.examples, plan.database),
            random=seeded,
            database_key=hashlib.sha256(key).digest(),
        )
        shrunk = True
    except (NoSuchExample, Unsatisfiable, FlakyFailure):
        pass
    drawn, reply = best[0] if best else found
    return Finding(
        tool=tool,
        call=kind,
        verdict=verdict,
        arguments=drawn.arguments,
        kind=drawn.kind,
        path=drawn.path,
        detail=reply.text,
        shrunk=shrunk,
    )

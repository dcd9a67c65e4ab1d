"""The numbers ``validate.py`` reports: totals, per-schema medians, ratios and goals.

For each way of calling (``tight`` and ``sweep``), each validator and each kind of value:

* ``total_ms``: the sum over the schemas of the per-call time (one call per schema);
* ``median_us`` / ``p90_us``: the median and 90th percentile of the per-call times;
* ``x_total``: the peer's total over ours, on the schemas both were timed on;
* ``x_median``: the median over those schemas of (peer time / our time).

Above 1, ours is faster. The goals compare ours with one peer on one kind of value, in
both ways of calling, by total and by per-schema median; each is PASS or MISS.

The first-calls sweep (`summarise_first_calls`) has the same rows, against ours on the
compiled closures, a goal of its own against jsonschema by total, and the floor: ours
(generated function, and closures) over the bare walk, by total and per-schema median,
with a bound on the generated function's.
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path
from typing import Any

from _validate_peers import BARE_WALK, FIRST_CALLS, GENERATED, OURS, Peer

__all__ = [
    "FIRST_CALL_GOALS",
    "FLOOR_BOUND",
    "GOALS",
    "MODES",
    "render",
    "shown",
    "summarise",
    "summarise_first_calls",
]


MODES = {"tight": "tight loop", "sweep": "sweep"}
STATS = {"total": "total", "median": "per-schema median"}
GOALS = (
    ("valid", "fastjsonschema", 1.0),
    ("invalid", "jsonschema-rs iter_errors", 1.0),
    ("valid", "jsonschema iter_errors", 25.0),
    ("invalid", "jsonschema iter_errors", 25.0),
)
"""(kind of value, peer, least speed-up of ours): ours must be this many times faster."""
FIRST_CALL_GOALS = (
    ("valid", "jsonschema iter_errors", 10.0),
    ("invalid", "jsonschema iter_errors", 10.0),
)
"""The same, for the closures in the first-calls sweep, by total."""
FLOOR_BOUND = 1.2
"""Ours on the generated function may take at most this many times the bare walk, by
total over the corpus, in the first-calls sweep."""


def _row(times: dict[str, float], ours: dict[str, float]) -> dict[str, Any]:
    values = list(times.values())
    shared = [i for i in times if i in ours]
    return {
        "schemas": len(values),
        "total_ms": sum(values) / 1000 if values else None,
        "median_us": statistics.median(values) if values else None,
        "p90_us": statistics.quantiles(values, n=10)[-1] if len(values) > 1 else None,
        "x_total": (
            sum(times[i] for i in shared) / sum(ours[i] for i in shared)
            if shared and sum(ours[i] for i in shared) > 0
            else None
        ),
        "x_median": (
            statistics.median(times[i] / ours[i] for i in shared if ours[i] > 0)
            if any(ours[i] > 0 for i in shared)
            else None
        ),
    }


def _compile(compiled: dict[str, dict[str, float]]) -> dict[str, Any]:
    both = [row for row in compiled.values() if "fastjsonschema" in row]
    out: dict[str, Any] = {"schemas": len(both)}
    for side in ("ours", "ours_first_call", "fastjsonschema"):
        values = [row[side] for row in both]
        out[side] = {
            "total_ms": sum(values) / 1000 if values else None,
            "median_us": statistics.median(values) if values else None,
            "p90_us": statistics.quantiles(values, n=10)[-1] if len(values) > 1 else None,
        }
    ours_total = sum(row["ours"] for row in both)
    out["x_total"] = sum(row["fastjsonschema"] for row in both) / ours_total if both else None
    out["x_median"] = (
        statistics.median(row["fastjsonschema"] / row["ours"] for row in both) if both else None
    )
    return out


def summarise(
    peers: list[Peer], timed: dict[str, Any], compiled: dict[str, dict[str, float]]
) -> dict[str, Any]:
    modes: dict[str, Any] = {}
    for mode, per_peer in timed.items():
        ours = per_peer[OURS]
        modes[mode] = {
            peer.name: {
                "note": peer.note,
                **{kind: _row(per_peer[peer.name][kind], ours[kind]) for kind in ours},
            }
            for peer in peers
        }
    checks = {
        peer.name: {
            "timed": len(peer.built),
            "skipped_cannot_compile": peer.skipped,
            "errored_while_validating": peer.errored,
            "disagreements": {k: len(v) for k, v in peer.disagree.items()},
            "disagreeing_ids": {k: v[:20] for k, v in peer.disagree.items()},
        }
        for peer in peers
    }
    targets = []
    for mode in MODES:
        for stat in STATS:
            for kind, peer, required in GOALS:
                row = modes[mode].get(peer, {}).get(kind)
                measured = row[f"x_{stat}"] if row else None
                verdict = "PASS" if measured is not None and measured >= required else "MISS"
                targets.append(
                    {
                        "mode": mode,
                        "stat": stat,
                        "kind": kind,
                        "peer": peer,
                        "required": required,
                        "measured": measured,
                        "verdict": verdict if row else "not measured",
                    }
                )
    return {"modes": modes, "checks": checks, "compile": _compile(compiled), "targets": targets}


def _floor(times: dict[str, float], walk: dict[str, float]) -> dict[str, Any]:
    """A side's time over the bare walk's: by total and per-schema median."""
    shared = [i for i in times if i in walk and walk[i] > 0]
    if not shared:
        return {"x_total": None, "x_median": None}
    return {
        "x_total": sum(times[i] for i in shared) / sum(walk[i] for i in shared),
        "x_median": statistics.median(times[i] / walk[i] for i in shared),
    }


def summarise_first_calls(sides: list[Peer], timed: dict[str, Any]) -> dict[str, Any]:
    """The rows of the first-calls sweep (ratios against ours on the closures), its goals
    and the floor ratios (a side's time over the bare walk's)."""
    closures = timed[FIRST_CALLS]
    rows: dict[str, dict[str, Any]] = {
        side.name: {
            "note": side.note,
            **{kind: _row(timed[side.name][kind], closures[kind]) for kind in closures},
        }
        for side in sides
    }
    walk = timed[BARE_WALK]
    floor = {
        name: {kind: _floor(timed[name][kind], walk[kind]) for kind in walk}
        for name in (GENERATED, FIRST_CALLS)
    }
    targets: list[dict[str, Any]] = []
    for kind, peer, required in FIRST_CALL_GOALS:
        measured = rows[peer][kind]["x_total"] if peer in rows else None
        targets.append(
            {
                "mode": "first_calls",
                "stat": "total",
                "kind": kind,
                "peer": peer,
                "required": required,
                "measured": measured,
                "verdict": _verdict(measured, required, higher=True),
            }
        )
    for kind in walk:
        measured = floor[GENERATED][kind]["x_total"]
        targets.append(
            {
                "mode": "first_calls",
                "stat": "total",
                "kind": kind,
                "peer": BARE_WALK,
                "required": FLOOR_BOUND,
                "measured": measured,
                "verdict": _verdict(measured, FLOOR_BOUND, higher=False),
            }
        )
    disagree = next(s for s in sides if s.name == FIRST_CALLS).disagree
    return {
        "rows": rows,
        "floor": floor,
        "targets": targets,
        "disagreements": {kind: len(ids) for kind, ids in disagree.items()},
    }


def _verdict(measured: float | None, bound: float, *, higher: bool) -> str:
    if measured is None:
        return "not measured"
    return "PASS" if (measured >= bound if higher else measured <= bound) else "MISS"


def first_call_label(target: dict[str, Any]) -> str:
    """``first calls (closures), sweep, total: ours vs jsonschema iter_errors, valid
    inputs``, or the floor's ``generated function, first-calls sweep, total: ours /
    bare walk, valid inputs``."""
    if target["peer"] == BARE_WALK:
        return (
            f"generated function, first-calls sweep, {STATS[target['stat']]}: ours / bare "
            f"walk, {target['kind']} inputs"
        )
    return (
        f"first calls (closures), sweep, {STATS[target['stat']]}: ours vs {target['peer']}, "
        f"{target['kind']} inputs"
    )


def _first_calls_lines(first: dict[str, Any]) -> list[str]:
    lines = ["", "first-calls sweep (x against ours on the closures):", *_mode_table(first["rows"])]
    lines += ["", "Over the bare walk (x = ours / walk; the walk is the floor):"]
    for name, kinds in first["floor"].items():
        cells = ", ".join(
            f"{kind} total {_num(row['x_total'], 0, 2).strip()}x, median "
            f"{_num(row['x_median'], 0, 2).strip()}x"
            for kind, row in kinds.items()
        )
        lines.append(f"  {name:44}{cells}")
    d = first["disagreements"]
    lines.append(
        f"  closures' verdict differs from the oracle's: {d['valid']} valid, {d['invalid']} invalid"
    )
    return lines


def target_label(target: dict[str, Any]) -> str:
    """``sweep, total: ours vs fastjsonschema, valid inputs``."""
    return (
        f"{MODES[target['mode']]}, {STATS[target['stat']]}: ours vs {target['peer']}, "
        f"{target['kind']} inputs"
    )


def _num(value: float | None, width: int, digits: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def _mode_table(rows: dict[str, Any]) -> list[str]:
    lines = [
        f"{'':32}{'valid inputs':^38}  {'invalid inputs':^38}",
        f"{'validator':32}"
        + f"{'total ms':>10}{'median us':>10}{'x total':>9}{'x median':>9}  " * 2
        + "errors reported",
    ]
    for name, row in rows.items():
        cells = [
            f"{_num(row[k]['total_ms'], 10, 1)}{_num(row[k]['median_us'], 10, 2)}"
            f"{_num(row[k]['x_total'], 9, 2)}{_num(row[k]['x_median'], 9, 2)}"
            for k in ("valid", "invalid")
        ]
        lines.append(f"{name:32}{cells[0]}  {cells[1]}  {row['note']}")
    return lines


def render(report: dict[str, Any]) -> str:
    counts = report["corpus"]
    lines = [
        f"Validation over the tool-schema corpus ({report['corpus_dir']}, "
        f"{'quick subset' if report['quick'] else 'all draft-usable files'})",
        f"schemas {counts['schemas']}: SchemaError {counts['schema_errors']}, "
        f"no valid value {counts['no_valid_value']}, no invalid value "
        f"{counts['no_invalid_value']}, measured {counts['measured']}",
        f"valid values: median {counts['valid_nodes_median']} JSON nodes, p90 "
        f"{counts['valid_nodes_p90']:.0f}, largest {counts['valid_nodes_max']}; invalid values: "
        f"median {counts['invalid_errors_median']} errors (jsonschema count), "
        f"{counts['invalid_single_error']} with a single error",
        "versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
    ]
    for mode, title in MODES.items():
        lines += ["", f"{title}:", *_mode_table(report["modes"][mode])]
    lines += [
        "",
        "total ms = sum over the schemas of one call's time; median us = median per-call",
        "time over the schemas; x total = peer total / ours, x median = median over schemas",
        "of (peer time / ours): above 1, ours is faster. fastjsonschema stops at the first",
        "error, so on invalid inputs it does less work.",
        "",
        "Compile per schema (ours: from_json_schema + building the generated function;",
        "ours_first_call: from_json_schema + the first validate_args, which builds the",
        "closures; the generated function is built on call GENERATE_AFTER; fastjsonschema:",
        "fastjsonschema.compile):",
    ]
    comp = report["compile"]
    for side in ("ours", "ours_first_call", "fastjsonschema"):
        row = comp[side]
        lines.append(
            f"  {side:16}total {_num(row['total_ms'], 9, 1)} ms  median "
            f"{_num(row['median_us'], 9, 1)} us  p90 {_num(row['p90_us'], 9, 1)} us"
        )
    lines.append(
        f"  fastjsonschema / ours: total {_num(comp['x_total'], 0, 2).strip()}x, per-schema "
        f"median {_num(comp['x_median'], 0, 2).strip()}x ({comp['schemas']} schemas)"
    )
    lines += _first_calls_lines(report["first_calls"])
    lines += ["", "Goals (x = peer time / ours; over the bare walk: ours / walk):"]
    for target in report["targets"]:
        lines.append(
            f"  {target_label(target):80} >= {target['required']:g}x: "
            f"{_num(target['measured'], 0, 2).strip()}x  {target['verdict']}"
        )
    for target in report["first_calls"]["targets"]:
        bound = "<=" if target["peer"] == BARE_WALK else ">="
        lines.append(
            f"  {first_call_label(target):80} {bound} {target['required']:g}x: "
            f"{_num(target['measured'], 0, 2).strip()}x  {target['verdict']}"
        )
    lines += [
        "",
        "Verdict disagreements with ours (schemas whose value one side accepts and the "
        "other refuses):",
        f"  {'validator':32}{'valid':>7}{'invalid':>9}{'cannot compile':>16}{'raised':>8}",
    ]
    for name, row in list(report["checks"].items())[1:]:
        d = row["disagreements"]
        lines.append(
            f"  {name:32}{d['valid']:>7}{d['invalid']:>9}"
            f"{row['skipped_cannot_compile']:>16}{row['errored_while_validating']:>8}"
        )
    lines += ["", f"runtime {report['runtime_s']:.1f} s"]
    return "\n".join(lines)


def shown(folder: Path) -> str:
    """The corpus folder relative to the repository root, as a POSIX path."""
    root = Path(__file__).resolve().parent.parent
    return Path(os.path.relpath(folder.resolve(), root)).as_posix()

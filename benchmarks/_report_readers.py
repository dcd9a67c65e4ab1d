"""How ``report.py`` turns each benchmark's JSON into targets and table rows.

One reader per benchmark script: it returns the targets (each a `Target`), the rows of the
benchmark's main table, and extra `Bench` fields (``more`` tables, ``notes``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from _report_targets import Target
from _report_text import ZH

__all__ = ["READERS"]

_MODES = {"tight": "tight loop", "sweep": "sweep"}
_STATS = {"total": "total", "median": "per-schema median"}
_KINDS = {"valid": "valid", "invalid": "invalid"}


def _ms(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _kind_cells(side: dict[str, Any]) -> list[str]:
    """The total, median and both ratios of each input kind of one validate row."""
    cells: list[str] = []
    for kind in _KINDS:
        row = side[kind]
        cells += [
            _ms(row["total_ms"], 1),
            _ms(row["median_us"]),
            _ms(row["x_total"]),
            _ms(row["x_median"]),
        ]
    return cells


def _validate(data: dict[str, Any]) -> tuple[list[Target], list[list[str]], Any]:
    targets = []
    for t in data["targets"]:
        mode, stat, kind = _MODES[t["mode"]], _STATS[t["stat"]], _KINDS[t["kind"]]
        zh = {"mode": ZH[t["mode"]], "stat": ZH[t["stat"]], "kind": ZH[t["kind"]]}
        targets.append(
            Target(
                "validate",
                f"{mode}, {stat}: ours vs {t['peer']}, {kind} inputs (x faster)",
                f"{mode}, {t['stat']}, {kind}: {t['peer'].removesuffix(' iter_errors')} / ours",
                t["measured"],
                t["required"],
                higher_is_better=True,
                reason=t["verdict"] if t["measured"] is None else "",
                zh=ZH["validate"].format(peer=t["peer"], **zh),
            )
        )
    rows = []
    for mode, label in _MODES.items():
        for name, peer in data["modes"][mode].items():
            rows.append([name, label, *_kind_cells(peer), peer["note"]])
    comp = data["compile"]
    compiled = [
        [
            label,
            str(comp["schemas"]),
            _ms(comp[side]["total_ms"], 1),
            _ms(comp[side]["median_us"], 1),
            _ms(comp[side]["p90_us"], 1),
            ratio,
        ]
        for side, label, ratio in (
            ("ours", "ours from_json_schema + generated function", "1.00"),
            ("ours_first_call", "ours from_json_schema + first validate_args", "-"),
            ("fastjsonschema", "fastjsonschema.compile", _ms(comp["x_median"])),
        )
    ]
    extra: dict[str, Any] = {"more": [("compile", compiled)]}
    first = data.get("first_calls")
    if first is not None:
        targets += _first_call_targets(first)
        for name, side in first["rows"].items():
            rows.append([name, _FIRST_CALLS, *_kind_cells(side), side["note"]])
        extra["notes"] = _first_call_notes(first)
    return targets, rows, extra


_FIRST_CALLS = "first-calls sweep"
_BARE_WALK = "bare walk (checks nothing)"
_GENERATED = "ours generated function"
_CLOSURES = "ours first calls (closures)"


def _first_call_targets(first: dict[str, Any]) -> list[Target]:
    """The first-calls sweep's goals: the closures against jsonschema, and the generated
    function against the bare walk of the value (the floor), each by total."""
    targets = []
    for t in first["targets"]:
        kind, reason = _KINDS[t["kind"]], t["verdict"] if t["measured"] is None else ""
        if t["peer"] == _BARE_WALK:
            targets.append(
                Target(
                    "validate",
                    f"generated function, first-calls sweep, total: ours / bare walk, "
                    f"{kind} inputs (x the floor)",
                    f"first-calls sweep, total, {kind}: generated / bare walk",
                    t["measured"],
                    t["required"],
                    higher_is_better=False,
                    reason=reason,
                    zh=_FIRST_ZH["floor"].format(kind=ZH[t["kind"]]),
                    why=_floor_why(first, t["kind"]),
                )
            )
            continue
        targets.append(
            Target(
                "validate",
                f"first calls (closures), sweep, total: ours vs {t['peer']}, {kind} inputs "
                "(x faster)",
                f"first calls, sweep, total, {kind}: "
                f"{t['peer'].removesuffix(' iter_errors')} / ours",
                t["measured"],
                t["required"],
                higher_is_better=True,
                reason=reason,
                zh=_FIRST_ZH["target"].format(peer=t["peer"], kind=ZH[t["kind"]]),
            )
        )
    return targets


def _floor_figures(first: dict[str, Any], kind: str) -> dict[str, str]:
    rows, floor = first["rows"], first["floor"]
    return {
        "walk": _ms(rows[_BARE_WALK][kind]["total_ms"], 1),
        "generated": _ms(rows[_GENERATED][kind]["total_ms"], 1),
        "closures": _ms(rows[_CLOSURES][kind]["total_ms"], 1),
        "x_generated": _ms(floor[_GENERATED][kind]["x_total"]),
        "x_closures": _ms(floor[_CLOSURES][kind]["x_total"]),
        "x_generated_median": _ms(floor[_GENERATED][kind]["x_median"]),
    }


def _floor_why(first: dict[str, Any], kind: str) -> dict[str, str]:
    """The floor's figures of this run, for a missed bound."""
    f = _floor_figures(first, kind)
    return {
        "en": (
            f"In this run the bare walk of the {kind} values, which visits every node and "
            f"looks at its type, takes {f['walk']} ms over the corpus, the generated "
            f"functions {f['generated']} ms ({f['x_generated']}x; per-schema median "
            f"{f['x_generated_median']}x) and the closures {f['closures']} ms "
            f"({f['x_closures']}x): checking each node's type, constraints and lossless "
            "form costs that many times reaching it."
        ),
        "zh": _FIRST_ZH["why"].format(kind=ZH[kind], **f),
    }


def _first_call_notes(first: dict[str, Any]) -> dict[str, str]:
    """What the first-calls sweep measures and includes, with its floor ratios."""
    rows, floor = first["rows"], first["floor"]
    jsonschema = rows.get("jsonschema iter_errors", {})
    ratios = {kind: _ms(jsonschema[kind]["x_total"]) if jsonschema else "-" for kind in _KINDS}
    walk = {
        (side, kind): _ms(floor[side][kind]["x_total"])
        for side in (_GENERATED, _CLOSURES)
        for kind in _KINDS
    }
    return {
        "en": (
            "The first-calls sweep times the calls a tool gets before `GENERATE_AFTER`, "
            "which run the compiled closures: each schema's valid and invalid values in "
            "turn over the corpus, round after round, on a spec of its own whose count of "
            "first calls is restarted before each round, beside jsonschema `iter_errors`, "
            "our generated function and a bare walk of the value that checks nothing (the "
            "floor any validator pays). Timed: the `validate_args` call, or the "
            "`iter_errors` call and the list of its errors; built before the sweep and not "
            "timed: jsonschema's validator, and our spec with its closures. "
            f"The closures are {ratios['valid']}x (valid) and {ratios['invalid']}x "
            "(invalid) faster than jsonschema by total; over the bare walk, the generated "
            f"function takes {walk[(_GENERATED, 'valid')]}x and "
            f"{walk[(_GENERATED, 'invalid')]}x its time and the closures "
            f"{walk[(_CLOSURES, 'valid')]}x and {walk[(_CLOSURES, 'invalid')]}x."
        ),
        "zh": _FIRST_ZH["notes"].format(
            valid=ratios["valid"],
            invalid=ratios["invalid"],
            generated_valid=walk[(_GENERATED, "valid")],
            generated_invalid=walk[(_GENERATED, "invalid")],
            closures_valid=walk[(_CLOSURES, "valid")],
            closures_invalid=walk[(_CLOSURES, "invalid")],
        ),
    }


# Chinese punctuation is full width, which RUF001 takes for look-alike characters.
_FIRST_ZH = {
    "target": "首次调用（闭包），轮扫，总耗时：我们对比 {peer}，{kind}输入（快多少倍）",  # noqa: RUF001
    "floor": "生成函数，首次调用轮扫，总耗时：我们 / 空遍历，{kind}输入（相对下限的倍数）",  # noqa: RUF001
    "why": (
        "本次运行中，对{kind}值的空遍历（访问每个节点并查看其类型）在整个语料上耗时 "  # noqa: RUF001
        "{walk} 毫秒，生成函数 {generated} 毫秒（{x_generated}x；逐 schema 中位数 "  # noqa: RUF001
        "{x_generated_median}x），闭包 {closures} 毫秒（{x_closures}x）："  # noqa: RUF001
        "检查每个节点的类型、约束和无损形式的开销是到达它的这么多倍。"
    ),
    "notes": (
        "首次调用轮扫测量一个工具在 `GENERATE_AFTER` 之前得到的调用，"  # noqa: RUF001
        "这些调用运行编译好的闭包：在整个语料上依次校验每个 schema 的有效值和无效值，"  # noqa: RUF001
        "一轮接一轮；每个 schema 使用单独的 spec，每轮开始前重置它的首次调用计数；"  # noqa: RUF001
        "同时测量 jsonschema `iter_errors`、我们的生成函数，"  # noqa: RUF001
        "以及只遍历值、不做任何检查的空遍历（任何校验器都要付出的下限）。"  # noqa: RUF001
        "计时的是 `validate_args` 调用，或 `iter_errors` 调用及其错误列表；"  # noqa: RUF001
        "在轮扫之前构建、不计时的是 jsonschema 的校验器，以及我们的 spec 及其闭包。"  # noqa: RUF001
        "按总耗时，闭包比 jsonschema 快 {valid}x（有效）和 {invalid}x（无效）；"  # noqa: RUF001
        "相对空遍历，生成函数耗时为其 {generated_valid}x 和 {generated_invalid}x，"  # noqa: RUF001
        "闭包为 {closures_valid}x 和 {closures_invalid}x。"
    ),
}
"""The first-calls sweep's Chinese labels and sentences, which ``_validate`` fills in."""


def _replay(data: dict[str, Any]) -> tuple[list[Target], list[list[str]], Any]:
    summary = data["summary"]
    target = summary["target"]
    targets = [
        Target(
            "replay",
            "ours replay_foreign (strict) total time / vcrpy + openai SDK",
            "vcrpy + SDK time / ours",
            target["measured"],
            target["max_ratio"],
            higher_is_better=False,
        )
    ]
    rows = []
    labels = {"ours": "ours replay_foreign (strict)", "peer": "vcrpy + openai SDK"}
    for side, label in labels.items():
        s = summary["replay"][side]
        rate = s["files"] / (s["total_ms"] / 1000) if s["total_ms"] else float("nan")
        rows.append(
            [
                label,
                str(s["files"]),
                f"{s['total_ms']:.1f}",
                f"{s['median_ms']:.2f}",
                f"{s['p90_ms']:.2f}",
                f"{rate:.0f}",
            ]
        )
    return targets, rows, {}


def _loop(data: dict[str, Any]) -> tuple[list[Target], list[list[str]], Any]:
    targets = [
        Target(
            "loop",
            f"invariant checker `{t['profile']}` alone: cost per event / the loop's own",
            f"loop / (loop + {t['profile']} checker), per event",
            1.0 / (1.0 + t["measured"]),
            1.0 / (1.0 + t["max"]),
            higher_is_better=True,
            zh=ZH["loop"].format(profile=t["profile"]),
        )
        for t in data["targets"]
    ]
    loop, alone = data["loop"], data["checker"]["us_per_event"]
    rows = []
    for profile, row in loop["us_per_event"].items():
        cells = [profile, f"{row['median']:.2f}", f"{row['spread']:.0%}"]
        cells.append(f"{1e6 / row['median']:,.0f}")
        cost = loop["overhead"].get(profile)
        cells.append(
            f"{cost['median']:.1%} ({cost['min']:.1%} to {cost['max']:.1%})" if cost else "-"
        )
        if profile in alone:
            share = alone[profile]["median"] / loop["us_per_event"]["off"]["median"]
            cells += [f"{alone[profile]['median']:.3f}", f"{alone[profile]['spread']:.0%}"]
            cells.append(f"{share:.1%}")
        else:
            cells += ["-", "-", "-"]
        rows.append(cells)
    return targets, rows, {}


_STEP_NAMES = {
    "scan": "secret scan of the text alone",
    "load": "load",
    "load+scan": "load with the secret scan on its node tree",
    "replay": "replay of the loaded cassette",
}


def _alone(summary: dict[str, Any], runner: str, small: str, large: str) -> dict[str, str]:
    """The memory of pytest alone beside a pytest runner's, measured in the same run."""
    memory = summary["memory"]
    alone = memory.get(runner.replace("pytest", "pytest alone", 1))
    if alone is None:
        return {}
    ours = memory[runner]
    extra = (ours["small_mib"] - alone["small_mib"], ours["large_mib"] - alone["large_mib"])
    figures = {
        "small": f"{int(small):,}",
        "large": f"{int(large):,}",
        "low": alone["small_mib"],
        "high": alone["large_mib"],
        "ratio": alone["ratio"],
        "extra_low": extra[0],
        "extra_high": extra[1],
        "alone_kb": (alone["large_mib"] - alone["small_mib"]) * 1024 / (int(large) - int(small)),
        "ours_kb": (ours["large_mib"] - ours["small_mib"]) * 1024 / (int(large) - int(small)),
    }
    return {
        "en": (
            "Measured in the same run, pytest alone (one trivial test per cassette path, "
            "this plugin disabled) grows from {low:.1f} to {high:.1f} MiB between {small} and "
            "{large} tests ({ratio:.2f}x, {alone_kb:.1f} KB per test; the suite grows by "
            "{ours_kb:.1f} KB per test); the rest of the peak, this library's share, goes "
            "from {extra_low:.1f} to {extra_high:.1f} MiB."
        ).format(**figures),
        "zh": ZH["pytest_alone"].format(**figures),
    }


def _steps(data: dict[str, Any]) -> dict[str, str]:
    """The step rows of the same run, in words, for a missed parse goal."""
    over = data.get("steps", {}).get("over_parse")
    if not over:
        return {}
    figures = {
        "load": over["load"],
        "scan": over["load+scan"] - over["load"],
        "replay": over["replay"],
    }
    return {
        "en": (
            "In this run, over the same parse in process: the load {load:.2f}x, the secret "
            "scan on its tree {scan:.2f}x more, the replay of the loaded cassette {replay:.2f}x."
        ).format(**figures),
        "zh": ZH["replay_steps"].format(**figures),
    }


def _why(data: dict[str, Any], kind: str, runner: str, small: str, large: str) -> dict[str, str]:
    if kind == "parse":
        return _steps(data)
    if runner.startswith("pytest"):
        return _alone(data["summary"], runner, small, large)
    return {}


def _replay_scale(data: dict[str, Any]) -> tuple[list[Target], list[list[str]], Any]:
    summary = data["summary"]
    small, large = (str(size) for size in summary["sizes"])
    targets = []
    for t in summary["targets"]:
        runner = t["label"].split(":")[0]
        label_zh = ZH[t["kind"]].format(runner=runner, large=large, small=small)
        short = {
            "load": "vcrpy's loader / our loader, total",
            "parse": "C YAML parse / replay, per cassette",
        }.get(t["kind"], f"{runner}: memory")
        targets.append(
            Target(
                "replay_scale",
                t["label"],
                short,
                t["measured"],
                t["max"],
                higher_is_better=False,
                zh=label_zh,
                plotted=t["kind"] != "memory",
                why=_why(data, t["kind"], runner, small, large),
            )
        )
    rows = [
        [
            runner,
            f"{int(size):,}",
            f"{row['seconds']:.1f}",
            f"{row['per_cassette_ms']:.2f}",
            f"{row['max_rss_mib']:.1f}",
        ]
        for runner, by_size in data["runs"].items()
        for size, row in by_size.items()
    ]
    load, parse = summary["load"], summary["parse"]
    loads = [
        [
            "load: cassettes.deserialize / vcrpy yamlserializer.deserialize, total ms",
            f"{load['ours_ms']:.1f}",
            f"{load['vcrpy_ms']:.1f}",
            f"{load['ratio_total']:.2f}x",
        ],
        [
            "harness-conformance replay / yaml CSafeLoader parse of the same files, "
            "ms per cassette",
            f"{parse['replay_ms_per_cassette']:.3f}",
            f"{parse['c_parse_ms_per_cassette']:.3f}",
            f"{parse['replay_ms_per_cassette'] / parse['c_parse_ms_per_cassette']:.2f}x",
        ],
    ]
    if "c_parse_in_process_ms_per_cassette" in parse:
        hot = parse["c_parse_in_process_ms_per_cassette"]
        loads.append(
            [
                "harness-conformance replay / the same parse in process, each file timed "
                "alone, ms per cassette",
                f"{parse['replay_ms_per_cassette']:.3f}",
                f"{hot:.3f}",
                f"{parse['replay_ms_per_cassette'] / hot:.2f}x",
            ]
        )
    steps = data.get("steps", {})
    for step, ms in steps.get("ms_per_cassette", {}).items():
        if step == "parse":
            continue
        loads.append(
            [
                f"step of replay, {_STEP_NAMES[step]} / C YAML parse, ms per cassette",
                f"{ms:.3f}",
                f"{steps['ms_per_cassette']['parse']:.3f}",
                f"{steps['over_parse'][step]:.2f}x",
            ]
        )
    runs = data["runs"]
    serial, parallel = runs["pytest"][large], runs["pytest -n 2"][large]
    notes = {}
    cores = data.get("cores") or "?"
    if parallel["seconds"] > serial["seconds"]:
        notes = {
            "en": (
                f"On this machine ({cores} cores) `pytest -n 2` took longer than a single "
                f"process over {int(large):,} cassettes ({parallel['seconds']:.1f} s against "
                f"{serial['seconds']:.1f} s)."
            ),
            "zh": ZH["xdist_slower"].format(
                cores=cores,
                count=f"{int(large):,}",
                parallel=parallel["seconds"],
                serial=serial["seconds"],
            ),
        }
    return targets, rows, {"more": [("loads", loads)], "notes": notes}


_SPEEDUP = {"hypothesis-jsonschema": 10.0, "schemathesis": 2.0}


def _generate(data: dict[str, Any]) -> tuple[list[Target], list[list[str]], Any]:
    targets = []
    for peer, want in _SPEEDUP.items():
        ratio = data["ratios"].get(peer, {}).get("ratio")
        label = f"ours vs {peer}, median ms per {data['examples']} examples (x faster)"
        short = f"{peer} time / ours"
        reason = data["unavailable"].get(peer, "not measured")
        targets.append(Target("generate", label, short, ratio, want, True, reason))
    for row in data["targets"]:
        if not row["target"].startswith("ours >="):
            targets.append(Target.boolean("generate", row["target"], row["value"], row["pass"]))
    rows = []
    for name, s in data["summaries"].items():
        rows.append(
            [
                name,
                str(s["attempted"]),
                f"{s['failures']} ({s['failure_pct']:.1f}%)",
                f"{s['median_ms']:.1f}",
                f"{s['p90_ms']:.1f}",
                f"{s['undeclared_pct']:.1f}%",
                str(s["invalid"]),
            ]
        )
    for name, reason in data["unavailable"].items():
        rows.append([name, "-", "-", "-", "-", "-", f"not measured: {reason}"])
    return targets, rows, {}


_SOCKET_SIDES = ("thread", "process", "loopback")


def _proxy_notes(data: dict[str, Any]) -> dict[str, str]:
    """The overhead of each proxy side per cassette, and the delayed requests, if any."""
    kinds, results = data["kinds"], data["results"]
    parts = []
    for kind, about in kinds.items():
        thread, command = results[kind]["thread"], results[kind]["process"]
        parts.append(
            {
                "label": about["label"],
                "ms": f"{thread['overhead_ms']['median']:+.2f} / "
                f"{command['overhead_ms']['median']:+.2f}",
                "x": f"{thread['x_direct']:.2f}x / {command['x_direct']:.2f}x",
                "p25": f"{thread['p25_over_ms']:+.2f} / {command['p25_over_ms']:+.2f}",
            }
        )
    notes = {
        "en": "Overhead per request over direct replay (the median of the step-by-step "
        "differences), proxy in a thread / proxy command: "
        + "; ".join(f"{p['label']} {p['ms']} ms ({p['x']})" for p in parts)
        + ". Between the first quartiles, which leave slow requests out: "
        + "; ".join(f"{p['label']} {p['p25']} ms" for p in parts)
        + ".",
        "zh": ZH["proxy_overhead"].format(
            parts=ZH["proxy_join"].join(ZH["proxy_part"].format(**p) for p in parts),
            quartiles=ZH["proxy_join"].join(ZH["proxy_quartile"].format(**p) for p in parts),
        ),
    }
    delayed = {
        side: sum(results[kind][side].get("delayed") or 0 for kind in kinds)
        for side in _SOCKET_SIDES
    }
    counted = [
        kind
        for kind in kinds
        if any(results[kind][side].get("delayed") is not None for side in _SOCKET_SIDES)
    ]
    if any(delayed.values()):
        total = sum(results[kind][side]["wall_ms"]["count"] for kind in counted for side in delayed)
        figures = {
            "count": sum(delayed.values()),
            "total": total,
            "ms": data["settings"]["delay_ms"],
            "kinds": ", ".join(kinds[kind]["label"] for kind in counted),
            **delayed,
        }
        notes["en"] += (
            " {count} of {total} requests over a socket to the cassettes whose answers come "
            "back in a few milliseconds ({kinds}) took at least {ms:g} ms longer than their "
            "side's first quartile (proxy in a thread {thread}, proxy command {process}, "
            "loopback server {loopback}). A wait of about 40 ms is TCP's delayed "
            "acknowledgement meeting Nagle's algorithm: the handlers of the proxy and of the "
            "loopback server write the head of an answer and then each event as small sends "
            "without `TCP_NODELAY`, and a small send waits until the previous one is "
            "acknowledged."
        ).format(**figures)
        notes["zh"] += ZH["proxy_delayed"].format(**figures)
    return notes


def _proxy(data: dict[str, Any]) -> tuple[list[Target], list[list[str]], Any]:
    rows = []
    for kind, about in data["kinds"].items():
        for side, label in data["sides"].items():
            row = data["results"][kind][side]
            wall, cpu, over = row["wall_ms"], row["cpu_total_ms"], row.get("overhead_ms")
            rows.append(
                [
                    about["label"],
                    str(about["events"]),
                    label,
                    f"{wall['median']:.2f}",
                    f"{wall['p25']:.2f}",
                    f"{wall['p75']:.2f}",
                    f"{wall['p90']:.2f}",
                    _ms(None if cpu is None else cpu["median"]),
                    "-" if over is None else f"{over['median']:+.2f}",
                    f"{row['x_direct']:.2f}x" if "x_direct" in row else "-",
                ]
            )
    return [], rows, {"notes": _proxy_notes(data)}


def _shard_runs(measured: dict[str, Any]) -> list[tuple[str, str, dict[str, Any], int]]:
    """``(count, label, run, cassettes)`` of every run, in the order they ran: the whole
    set, the shards, and the whole set again when it was run twice."""
    counts, total = measured["counts"], measured["cassettes"]
    whole = counts["1"]["runs"]
    runs = [("1", "1/1 (a)", whole[0], total)]
    for count, row in counts.items():
        if count != "1":
            for index, (run, size) in enumerate(zip(row["runs"], row["cassettes"], strict=True)):
                runs.append((count, f"{index + 1}/{count}", run, size))
    runs += [("1", "1/1 (b)", again, total) for again in whole[1:]]
    return runs


def _shards_why(measured: dict[str, Any]) -> dict[str, str]:
    """The CPU of the whole runs, what each shard beyond the first added, and the CPU per
    cassette of every run, for a missed bound."""
    counts = measured["counts"]
    whole = [run["cpu_seconds"] for run in counts["1"]["runs"]]
    one = counts["1"].get("baseline_cpu_seconds", sum(whole) / len(whole))
    extra = {
        count: (sum(run["cpu_seconds"] for run in row["runs"]) - one) / (int(count) - 1)
        for count, row in counts.items()
        if count != "1"
    }
    per = [
        (label, f"{run['cpu_seconds'] / size * 1000:.2f}")
        for _count, label, run, size in _shard_runs(measured)
    ]
    figures = {
        "one": f"{one:.1f}",
        "before": f"{whole[0]:.1f}",
        "after": f"{whole[-1]:.1f}",
        "each": ", ".join(f"{seconds:.2f} s ({count} shards)" for count, seconds in extra.items()),
        "each_zh": ZH["shards_extra_sep"].join(
            ZH["shards_extra_each"].format(seconds=f"{seconds:.2f}", count=count)
            for count, seconds in extra.items()
        ),
        "per": ", ".join(f"{ms} ms ({label})" for label, ms in per),
        "per_zh": ZH["shards_extra_sep"].join(
            ZH["shards_per_each"].format(ms=ms, run=label) for label, ms in per
        ),
    }
    return {
        "en": (
            "In this run the whole set took {one} s of CPU (the mean of {before} s before the "
            "shards and {after} s after), and each shard beyond the first added {each}; per "
            "cassette, the runs took {per}."
        ).format(**figures),
        "zh": ZH["shards_extra"].format(
            one=figures["one"],
            before=figures["before"],
            after=figures["after"],
            each=figures["each_zh"],
            per=figures["per_zh"],
        ),
    }


def _shards(data: dict[str, Any]) -> tuple[list[Target], list[list[str]], Any]:
    summary, measured = data["summary"], data["measured"]
    covered, merged = summary["covered"], summary["merged_equal"]
    targets = [
        Target.boolean(
            "shards",
            "shards: together every cassette once (2 and 4 shards)",
            "yes" if covered else "no",
            covered,
        ),
        Target.boolean(
            "shards",
            "shards: merged report equals the whole run's, exit status included",
            "yes" if merged else "no",
            merged,
        ),
        Target(
            "shards",
            f"shards: CPU of the shards added up / one run's, {measured['cassettes']:,} "
            "cassettes (the larger of 2 and 4 shards)",
            "shards' CPU / one run's",
            summary["cpu_ratio"],
            summary["cpu_target"],
            higher_is_better=False,
            zh=ZH["shards_cpu"].format(count=f"{measured['cassettes']:,}"),
            plotted=False,
            why=_shards_why(measured),
        ),
        Target(
            "shards",
            "shards: peak RSS of a shard against one run's, either way (memory stays flat)",
            "shard peak / one run's",
            summary["peak_ratio"],
            summary["flat"],
            higher_is_better=False,
            zh=ZH["shards_peak"],
            plotted=False,
        ),
    ]
    rows = [
        [
            count,
            label,
            f"{size:,}",
            f"{run['seconds']:.1f}",
            f"{run['cpu_seconds']:.1f}",
            f"{run['max_rss_mib']:.1f}",
        ]
        for count, label, run, size in _shard_runs(measured)
    ]
    checks = [
        [
            count,
            str(row["missing"]),
            str(row["twice"]),
            "yes" if row["merged_equal"] else "no",
            f"{row['cpu_ratio']:.3f}x",
            f"{row['peak_ratio']:.2f}x",
        ]
        for count, row in measured["counts"].items()
        if count != "1"
    ]
    return targets, rows, {"more": [("shard_checks", checks)]}


def _phases_why(data: dict[str, Any]) -> dict[str, str]:
    """The phases of the judged environment's tests, in words, for a missed goal."""
    row = data["environments"][data["judged_on"]]
    figures = {"env": data["judged_on"]}
    for kind in ("empty", "replayed"):
        for phase in ("setup", "call", "teardown"):
            figures[f"{kind}_{phase}"] = f"{row[kind]['phases_ms'][phase]:.2f}"
    return {
        "en": (
            "In this run ({env}), CPU medians per phase: a replayed test's setup "
            "{replayed_setup} ms, call {replayed_call} ms, teardown {replayed_teardown} ms; "
            "an empty test's {empty_setup}, {empty_call} and {empty_teardown} ms."
        ).format(**figures),
        "zh": ZH["replay_test_cost_phases"].format(**figures),
    }


def _replay_test_cost(data: dict[str, Any]) -> tuple[list[Target], list[list[str]], Any]:
    targets = [
        Target(
            "replay_test_cost",
            "downstream replayed test, ms per test above an empty test "
            "(setup+call+teardown CPU, lower quartile)",
            "replayed test - empty test, ms",
            data["extra_ms"],
            data["target_ms"],
            higher_is_better=False,
            zh=ZH["replay_test_cost"],
            plotted=False,
            why=_phases_why(data),
            unit="ms",
        )
    ]
    rows = []
    for name, row in data["environments"].items():
        for kind in ("empty", "replayed"):
            r = row[kind]
            phases = [f"{r['phases_ms'][phase]:.2f}" for phase in ("setup", "call", "teardown")]
            rows.append(
                [
                    name,
                    f"{kind} test",
                    f"{r['cpu_q1_ms']:.2f}",
                    f"{r['cpu_median_ms']:.2f}",
                    f"{r['wall_median_ms']:.2f}",
                    *phases,
                ]
            )
        rows.append(
            [
                name,
                "replayed - empty",
                f"{row['extra_q1_ms']:.2f}",
                f"{row['extra_median_ms']:.2f}",
                f"{row['extra_wall_median_ms']:.2f}",
                "-",
                "-",
                "-",
            ]
        )
    whole = data["whole_run"]
    runs = [
        [
            f"{data['tests']} - {data['small']}",
            f"{whole['empty_ms']:.2f}",
            f"{whole['replayed_ms']:.2f}",
            f"{whole['extra_ms']:.2f}",
        ]
    ]
    more = [("replay_test_cost_runs", runs)]
    profile = data.get("profile_ms")
    if profile:
        total = sum(profile.values())
        shares = sorted(profile.items(), key=lambda item: -item[1])
        more.append(
            (
                "replay_test_cost_profile",
                [[name, f"{ms / total:.1%}", f"{ms:.2f}"] for name, ms in shares if ms >= 0.01],
            )
        )
    return targets, rows, {"more": more}


Reader = Callable[[dict[str, Any]], tuple[list[Target], list[list[str]], dict[str, Any]]]
READERS: dict[str, Reader] = {
    "validate": _validate,
    "replay": _replay,
    "replay_scale": _replay_scale,
    "loop": _loop,
    "generate": _generate,
    "proxy": _proxy,
    "shards": _shards,
    "replay_test_cost": _replay_test_cost,
}

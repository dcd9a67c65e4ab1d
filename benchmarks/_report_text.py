"""The Markdown of docs/benchmarks.md and docs/benchmarks.zh.md, built from the numbers.

Both languages share one skeleton: the same headings in the same order and the same
fenced code blocks, byte for byte; only prose, table headers and target labels differ.
"""

from __future__ import annotations

from typing import Any

from _report_misses import HEADING, NONE_MISSED, explain
from _report_targets import Bench, Target

__all__ = ["ZH", "render"]


_TEXT: dict[str, dict[str, Any]] = {
    "en": {
        "title": "Benchmarks",
        "intro": (
            "Measurements of harness-conformance beside its peers, written by "
            "`benchmarks/report.py` from one run of each script in `benchmarks/` (see "
            "[benchmarks/README.md](../benchmarks/README.md) for what each one times and "
            "how). They are measurements, not tests: a missed target never fails a build."
        ),
        "summary": "Summary",
        "summary_head": ["benchmark", "target", "required", "measured", "verdict"],
        "plot": (
            "Each bar is a ratio turned so that above 1 means ours is faster; the black mark "
            "is the target."
        ),
        "machine": "Machine and command",
        "facts": {
            "run": "run",
            "date": "date",
            "cores": "cores",
            "cpu": "CPU",
            "python": "Python",
            "system": "system",
        },
        "runs": {
            "full": "full (every script in its full mode)",
            "quick": "quick (`--quick`): a smoke test of the scripts; its numbers are not results",
        },
        "command": (
            "The report was produced by this command, which ran these scripts "
            "(`tox -e bench` runs the full report):"
        ),
        "not_run": "not run",
        "failed": "The script failed ({}); its numbers are missing.",
        "versions": "Versions",
        "sections": {
            "validate": (
                "Validation",
                "Two ways of calling each validator: a tight loop (one schema called many "
                "times) and a sweep (each schema once in turn, round after round over the "
                "corpus). `total ms` is the sum over the schemas of one call's time, `median us` "
                "the median per-call time; `x total` is that validator's total over ours and "
                "`x median` the median over the schemas of (its time / ours): above 1, ours is "
                "faster. The second table is the cost of making a validator for one schema.",
            ),
            "replay": (
                "Cassette replay",
                "Cassettes replayed through the loop with the "
                "`strict` checker beside plain vcrpy and the openai SDK.",
            ),
            "loop": (
                "Agent loop",
                "Microseconds per event through the loop on a scripted session with each "
                "invariant profile, and of the checker alone fed the recorded events "
                "(`check_log`); medians of repeated rounds with their spread "
                "((max - min) / median). The goal is judged on the checker alone as a share "
                "of the loop's own cost per event.",
            ),
            "replay_scale": (
                "Replay at scale",
                "Copies of the recorded corpus replayed by the CLI and by a pytest project with "
                "one `SessionConformanceTests` suite, each run in its own process; peak RSS is "
                "that of the largest process of the run. The second table compares loading and "
                "parsing on the distinct corpus files.",
            ),
            "generate": (
                "Argument generation",
                "Milliseconds per 50 drawn examples, median over the schemas each tool drew for.",
            ),
            "shards": (
                "Sharded replay",
                "Copies of the recorded corpus replayed by `harness-conformance replay` "
                "whole (1/1 (a)), then once per shard of 2 and of 4 (`--shard K/N`), then "
                "whole again (1/1 (b)), "
                "each run alone in a process of its own; CPU is the user and system time of "
                "the run's process tree, peak RSS its largest process. Per count of shards "
                "the second table checks that the shards together hold every cassette once, "
                "that `merge` of their reports equals the whole run's report, and sets their "
                "CPU and memory beside the whole run's, whose CPU is the mean of the two "
                "whole runs (taken on both sides of the shards, so that the machine's drift "
                "over the half hour moves the baseline too).",
            ),
            "replay_test_cost": (
                "A replayed test in a downstream suite",
                "A downstream project whose tests are written as the getting-started guide "
                "writes a first one (an `@pytest.mark.anyio` test awaiting `replay_session` "
                "on `hc_model`), parametrized over one shared cassette, beside as many empty "
                "tests; its conftest.py times each test's setup, call and teardown. Each "
                "module runs in its own process, interleaved and repeated, with `CI` set and "
                "no key (`ci`) and with `CI` unset and the recording key set (`local`). CPU "
                "is the setup + call + teardown CPU time per test (lower quartile, median), "
                "wall its wall time (median); the phases are CPU medians. The second table is "
                "the whole-run figure: the wall time of a full run less that of a 5-test run, "
                "over the difference of the counts (`ci`), which counts collection, reporting "
                "and waiting too. The third table is cProfile of one more `ci` run after its "
                "first ten tests: the self time of each package, as shares of the measured CPU "
                "per test (the standard library's time counts for the package that called it).",
            ),
            "proxy": (
                "Recording proxy",
                "Milliseconds per request for the same recorded answer: replayed in process by "
                "`use_cassette`, through `proxy_cassette` in a thread of the same process, "
                "through the `harness-conformance proxy` command in a process of its own, and "
                "served by `LoopbackModelServer` without a cassette. The four take turns "
                "request by request; `overhead ms` is the median of a side's time minus "
                "direct replay's at the same step, `x direct` its median over direct "
                "replay's. CPU is the client thread's, plus for the socket sides that of the "
                "thread that served the connection. No target is set.",
            ),
        },
        "heads": {
            "validate": [
                "validator",
                "calling",
                "valid: total ms",
                "valid: median us",
                "valid: x total",
                "valid: x median",
                "invalid: total ms",
                "invalid: median us",
                "invalid: x total",
                "invalid: x median",
                "errors",
            ],
            "compile": ["compile", "schemas", "total ms", "median us", "p90 us", "x ours"],
            "replay": ["side", "files", "total ms", "median ms", "p90 ms", "cassettes/s"],
            "loop": [
                "checker",
                "loop us/event",
                "spread",
                "events/s",
                "overhead in the loop (range)",
                "alone us/event",
                "spread",
                "share of the loop",
            ],
            "replay_scale": ["runner", "cassettes", "seconds", "ms per cassette", "peak RSS MiB"],
            "loads": ["comparison", "ours", "the other", "ours / other"],
            "generate": [
                "tool",
                "schemas",
                "failures",
                "median ms",
                "p90 ms",
                "undeclared keys",
                "invalid examples",
            ],
            "shards": ["shards", "shard", "cassettes", "wall s", "CPU s", "peak RSS MiB"],
            "replay_test_cost": [
                "environment",
                "test",
                "CPU q1 ms",
                "CPU median ms",
                "wall median ms",
                "setup ms",
                "call ms",
                "teardown ms",
            ],
            "replay_test_cost_runs": [
                "tests in the two runs",
                "empty ms per test",
                "replayed ms per test",
                "difference ms",
            ],
            "replay_test_cost_profile": [
                "where a replayed test spends its CPU",
                "share",
                "ms per test",
            ],
            "shard_checks": [
                "shards",
                "missing",
                "twice",
                "merged = one run",
                "CPU / one run",
                "peak / one run",
            ],
            "proxy": [
                "cassette",
                "events",
                "side",
                "median ms",
                "p25 ms",
                "p75 ms",
                "p90 ms",
                "CPU ms",
                "overhead ms",
                "x direct",
            ],
        },
    },
    "zh": {
        "title": "基准测试",
        "intro": (
            "harness-conformance 与同类工具的并排测量，由 `benchmarks/report.py` "
            "根据 `benchmarks/` 中每个脚本的一次运行写出（各脚本测什么、怎么测，见 "
            "[benchmarks/README.zh.md](../benchmarks/README.zh.md)）。这些是测量而不是测试："
            "未达标不会让构建失败。"
        ),
        "summary": "概览",
        "summary_head": ["基准", "目标", "要求", "实测", "结论"],
        "plot": "每根柱子是一个比值，已换算为大于 1 表示我们更快；黑色短线是目标。",
        "machine": "机器与命令",
        "facts": {
            "run": "运行方式",
            "date": "日期",
            "cores": "核数",
            "cpu": "CPU",
            "python": "Python",
            "system": "系统",
        },
        "runs": {
            "full": "完整（每个脚本都以完整模式运行）",
            "quick": "快速（`--quick`）：只是对脚本的冒烟测试，其数字不是结果",
        },
        "command": "本报告由下面的命令生成，它依次运行了这些脚本（`tox -e bench` 运行完整报告）：",
        "not_run": "未运行",
        "failed": "脚本运行失败（{}），缺少它的数据。",
        "versions": "版本",
        "sections": {
            "validate": (
                "校验",
                "每个校验器按两种方式调用：紧循环（同一个 schema 连续调用多次）与轮扫"
                "（每轮依次对语料中每个 schema 各调用一次，重复多轮）。`total ms` 是各 schema "
                "单次调用耗时之和，`median us` 是单次调用耗时的中位数；`x total` 是该校验器"
                "总耗时与我们总耗时之比，`x median` 是各 schema 上（其耗时 / 我们的耗时）的"
                "中位数：大于 1 表示我们更快。第二张表是为一个 schema 构建校验器的开销。",
            ),
            "replay": (
                "录像回放",
                "在启用 `strict` 检查器的循环中回放录像，与直接用 vcrpy 加 openai SDK 回放对比。",
            ),
            "loop": (
                "代理循环",
                "脚本化会话在循环中每个事件的微秒数（分别使用各个不变量配置），以及把录下的"
                "事件单独交给检查器（`check_log`）时每个事件的微秒数；取多轮的中位数，并给出"
                "离散度（(最大 - 最小) / 中位数）。目标按单独测得的检查器开销占循环自身每事件"
                "开销的比例判定。",
            ),
            "replay_scale": (
                "大规模回放",
                "录像语料的副本分别由命令行和一个只含一个 `SessionConformanceTests` 套件的 "
                "pytest 项目回放，每次运行各在独立进程中；峰值 RSS 取该次运行中最大进程的值。"
                "第二张表在语料的各个不同文件上比较加载与解析。",
            ),
            "generate": (
                "参数生成",
                "每抽取 50 个样例的毫秒数，取各工具成功抽样的 schema 的中位数。",
            ),
            "shards": (
                "分片回放",
                "录像语料的副本由 `harness-conformance replay` 先完整回放一次（1/1 (a)），再按 2 个"
                "和 4 个分片（`--shard K/N`）逐片回放，最后再完整回放一次（1/1 (b)），每次运行"
                "单独占用一个独立"
                "进程；CPU 是该次运行进程树的用户态与内核态时间，峰值 RSS 取其中最大进程的值。"
                "第二张表按分片数检查：各分片合起来恰好包含每个录像一次，`merge` 合并各分片"
                "报告后与完整运行的报告相同，并把各分片的 CPU 与内存同完整运行相比；完整运行的"
                "CPU 取两次完整运行的平均值（两次分别在分片运行之前和之后，这样机器在这半小时"
                "内的快慢漂移也会反映在基准上）。",
            ),
            "replay_test_cost": (
                "下游套件中的一个回放测试",
                "一个下游项目，其测试按入门指南中第一个测试的写法编写（一个 `@pytest.mark.anyio` "
                "测试，在 `hc_model` 上等待 `replay_session`），在一个共享磁带上参数化，并与同样"
                "数量的空测试并列；它的 conftest.py 为每个测试的 setup、call 和 teardown 计时。"
                "每个模块在各自的进程中运行，交替并重复，分别在设置 `CI` 且没有密钥（`ci`）和不"
                "设置 `CI`、录制用的密钥仍在环境中（`local`）两种环境下。CPU 是每个测试 setup + "
                "call + teardown 的 CPU 时间（下四分位数、中位数），墙钟是其墙钟时间（中位数）；"
                "各阶段为 CPU 中位数。第二张表是整次运行的数字：完整运行与 5 个测试的运行的墙钟"
                "时间之差除以测试数量之差（`ci`），其中也包含收集、报告和等待。"
                "第三张表是再运行一次 `ci` 时、跳过前十个测试后的 cProfile 结果："
                "每个包的自身耗时，按测得的每个测试 CPU 时间折算成占比"
                "（标准库的耗时计入调用它的包）。",
            ),
            "proxy": (
                "录制代理",
                "同一段录制的回答每个请求的毫秒数：由 `use_cassette` 在进程内回放，经由同一"
                "进程中线程里的 `proxy_cassette`，经由独立进程中的 `harness-conformance proxy` "
                "命令，以及由不用录像的 `LoopbackModelServer` 提供。四者逐个请求轮流进行；"
                "`overhead ms` 是某一方的耗时减去同一步中直接回放耗时的中位数，`x direct` "
                "是其中位数与直接回放中位数之比。CPU 是客户端线程的 CPU 时间，对经由套接字的"
                "各方再加上服务该连接的线程的 CPU 时间。不设目标。",
            ),
        },
        "heads": {
            "validate": [
                "校验器",
                "调用方式",
                "有效输入：总毫秒",
                "有效输入：中位微秒",
                "有效输入：x total",
                "有效输入：x median",
                "无效输入：总毫秒",
                "无效输入：中位微秒",
                "无效输入：x total",
                "无效输入：x median",
                "报告的错误",
            ],
            "compile": ["构建", "schema 数", "总毫秒", "中位微秒", "p90 微秒", "x ours"],
            "replay": ["一方", "文件数", "总毫秒", "中位毫秒", "p90 毫秒", "录像/秒"],
            "loop": [
                "检查器",
                "循环 微秒/事件",
                "离散度",
                "事件/秒",
                "循环中的开销（范围）",
                "单独 微秒/事件",
                "离散度",
                "占循环的比例",
            ],
            "replay_scale": ["运行方式", "录像数", "秒", "毫秒/录像", "峰值 RSS MiB"],
            "loads": ["比较", "我们", "对方", "我们 / 对方"],
            "generate": [
                "工具",
                "schema 数",
                "失败",
                "中位毫秒",
                "p90 毫秒",
                "未声明的键",
                "无效样例",
            ],
            "shards": ["分片数", "分片", "录像数", "墙钟秒", "CPU 秒", "峰值 RSS MiB"],
            "replay_test_cost": [
                "环境",
                "测试",
                "CPU 下四分位 ms",
                "CPU 中位 ms",
                "墙钟中位 ms",
                "setup ms",
                "call ms",
                "teardown ms",
            ],
            "replay_test_cost_runs": [
                "两次运行的测试数",
                "空测试每个 ms",
                "回放测试每个 ms",
                "差值 ms",
            ],
            "replay_test_cost_profile": ["回放测试的 CPU 花在哪里", "占比", "每个测试 ms"],
            "shard_checks": [
                "分片数",
                "缺少",
                "重复",
                "合并 = 单次运行",
                "CPU / 单次运行",
                "峰值 / 单次运行",
            ],
            "proxy": [
                "录像",
                "事件数",
                "一方",
                "中位毫秒",
                "p25 毫秒",
                "p75 毫秒",
                "p90 毫秒",
                "CPU 毫秒",
                "overhead ms",
                "x direct",
            ],
        },
    },
}

ZH: dict[str, str] = {
    "tight": "紧循环",
    "sweep": "轮扫",
    "total": "总耗时",
    "median": "逐 schema 中位数",
    "valid": "有效",
    "invalid": "无效",
    "validate": "{mode}，{stat}：我们对比 {peer}，{kind}输入（快多少倍）",
    "loop": "不变量检查器 `{profile}` 单独测量：每事件开销 / 循环自身每事件开销",
    "load": "我们的加载器 / vcrpy 的加载器，总耗时",
    "parse": "replay 每个录像的耗时 / C YAML 解析",
    "memory": "{runner}：{large} 个录像时的峰值 RSS / {small} 个时",
    "replay_steps": (
        "本次运行中，相对于在进程内做的同一解析：加载 {load:.2f}x，在其节点树上的密钥扫描再加 "
        "{scan:.2f}x，已加载录像的回放 {replay:.2f}x。"
    ),
    "pytest_alone": (
        "同一次运行中测得：单独的 pytest（每个录像路径一个空测试，禁用本插件）在 {small} 到 "
        "{large} 个测试之间从 {low:.1f} MiB 增长到 {high:.1f} MiB（{ratio:.2f}x，每个测试 "
        "{alone_kb:.1f} KB；本套件每个测试增长 {ours_kb:.1f} KB）；峰值的其余"
        "部分，即本库所占的份额，从 {extra_low:.1f} MiB 变为 {extra_high:.1f} MiB。"
    ),
    "proxy_overhead": (
        "相对直接回放，每个请求的额外开销（逐步差值的中位数），线程中的代理 / 代理命令：{parts}。"
        "两者第一四分位数之差（不含慢的请求）：{quartiles}。"
    ),
    "proxy_part": "{label} {ms} 毫秒（{x}）",
    "proxy_quartile": "{label} {p25} 毫秒",
    "proxy_join": "；",
    "proxy_delayed": (
        "在回答几毫秒内即返回的录像（{kinds}）上，经由套接字的 {total} 个请求中有 {count} 个"
        "比所在一方的第一四分位数慢至少 {ms:g} 毫秒（线程中的代理 {thread} 个，代理命令 "
        "{process} 个，回环服务器 {loopback} 个）。约 40 毫秒的等待是 TCP 延迟确认与 Nagle "
        "算法相遇的结果：代理和回环服务器的处理程序先写回答的头部，再把每个事件作为小块"
        "分别发送，且没有设置 `TCP_NODELAY`，于是一次小块发送要等到前一次被确认。"
    ),
    "shards_cpu": (
        "分片：各分片 CPU 之和 / 单次运行的 CPU，{count} 个录像（2 个与 4 个分片中较大者）"
    ),
    "replay_test_cost": (
        "下游回放测试：每个测试比空测试多花的毫秒数（setup+call+teardown CPU，下四分位数）"
    ),
    "replay_test_cost_phases": (
        "本次运行（{env}）中各阶段的 CPU 中位数：回放测试 setup {replayed_setup} 毫秒、call "
        "{replayed_call} 毫秒、teardown {replayed_teardown} 毫秒；空测试分别为 {empty_setup}、"
        "{empty_call} 和 {empty_teardown} 毫秒。"
    ),
    "shards_extra": (
        "本次运行中，完整运行耗用 {one} 秒 CPU（前后两次为 {before} 秒和 {after} 秒），"
        "第一个分片之外每多一个分片增加 {each}；每个录像的 CPU：{per}。"
    ),
    "shards_per_each": "{ms} 毫秒（{run}）",
    "shards_extra_each": "{seconds} 秒（{count} 个分片）",
    "shards_extra_sep": "，",
    "shards_peak": "分片：单个分片的峰值 RSS 与单次运行之比，取两个方向中较大者（内存保持平稳）",
    "xdist_slower": (
        "在这台机器上（{cores} 核），回放 {count} 个录像时 `pytest -n 2` 比单进程更慢"
        "（{parallel:.1f} 秒对 {serial:.1f} 秒）。"
    ),
}
"""Chinese labels and sentences that ``report.py`` fills in with the numbers."""

_ZH_LABELS = {
    "ours replay_foreign (strict) total time / vcrpy + openai SDK": (
        "我们的 replay_foreign（strict）总耗时 / vcrpy 加 openai SDK"
    ),
    "ours draws valid examples for 100% of satisfiable schemas": (
        "对所有可满足的 schema 都能抽出有效样例"
    ),
    "ours: no undeclared keys": ("我们的样例没有未声明的键"),
    "shards: together every cassette once (2 and 4 shards)": (
        "分片：合起来每个录像恰好一次（2 个与 4 个分片）"
    ),
    "shards: merged report equals the whole run's, exit status included": (
        "分片：合并后的报告与完整运行的相同，退出状态也相同"
    ),
}


def _label(language: str, target: Target) -> str:
    if language == "en":
        return target.label
    if target.zh:
        return target.zh
    if target.label in _ZH_LABELS:
        return _ZH_LABELS[target.label]
    if target.label.startswith("ours vs ") and target.label.endswith("(x faster)"):
        peer = target.label.split(",")[0].removeprefix("ours vs ")
        return f"我们对比 {peer}，每 50 个样例的中位毫秒（快多少倍）"
    if target.label.startswith("ours median <="):
        return target.label.replace("ours median", "我们的中位耗时").replace("ms per", "毫秒 / 每")
    return target.label


def _verdict(language: str, target: Target) -> str:
    if target.measured is None and target.check is None:
        word = "not measured" if language == "en" else "未测量"
        return f"{word}: {target.reason}" if target.reason else word
    return "PASS" if target.passed else "MISS"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return [line(head), line(["---"] * len(head)), *(line(r) for r in rows)]


def _versions(bench: Bench) -> str:
    data = bench.data
    found: dict[str, Any] = dict(data.get("versions", {}))
    if bench.name == "generate":
        found = dict(found.get("ours", {}))
        found["hypothesis"] = data.get("versions", {}).get("ours_hypothesis", "?")
        for name, version in data.get("versions", {}).get("peers", {}).items():
            found[f"{name} (peer)"] = version
    found.pop("python", None)
    return ", ".join(f"{name} {version}" for name, version in found.items())


def render(language: str, benches: list[Bench], facts: dict[str, str], command: str) -> str:
    text = _TEXT[language]
    out = [f"# {text['title']}", "", text["intro"], "", f"## {text['summary']}", ""]
    rows = []
    for bench in benches:
        if bench.failure:
            rows.append([bench.name, text["failed"].format(bench.failure), "-", "-", "-"])
        for t in bench.targets:
            rows.append(
                [
                    bench.name,
                    _label(language, t),
                    t.required_text(language),
                    t.measured_text(language),
                    _verdict(language, t),
                ]
            )
    out += _table(text["summary_head"], rows)
    out += ["", "![benchmarks](benchmarks.png)", "", text["plot"], ""]
    out += [f"## {HEADING[language]}", ""]
    missed = [
        t
        for bench in benches
        for t in bench.targets
        if not t.passed and (t.measured is not None or t.check is not None)
    ]
    out += [
        f"- {_label(language, t)} ({t.measured_text(language)}, {t.required_text(language)}): "
        f"{explain(t, language)}"
        for t in missed
    ] or [NONE_MISSED[language]]
    out.append("")
    out += [f"## {text['machine']}", ""]
    shown = {**facts, "run": text["runs"].get(facts.get("run", ""), facts.get("run", "?"))}
    out += [f"- {text['facts'][key]}: {shown.get(key, '?')}" for key in text["facts"]]
    out += ["", text["command"], "", "```sh", command]
    out += [bench.command or f"# {bench.name}: {text['not_run']}" for bench in benches]
    out += ["```", ""]
    for bench in benches:
        title, about = text["sections"][bench.name]
        out += [f"## {title}", "", about, ""]
        if bench.failure:
            out += [text["failed"].format(bench.failure), ""]
            continue
        out += _table(text["heads"][bench.name], bench.rows)
        for key, rows in bench.more:
            out += ["", *_table(text["heads"][key], rows)]
        if bench.notes.get(language):
            out += ["", bench.notes[language]]
        versions = _versions(bench)
        if versions:
            out += ["", f"{text['versions']}: {versions}."]
        out.append("")
    return "\n".join(out)

"""The Markdown of docs/benchmarks.md and docs/benchmarks.zh.md, built from the numbers.

Both languages share one skeleton: the same headings in the same order and the same
fenced code blocks, byte for byte; only prose, table headers and target labels differ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Bench", "Target", "render"]


@dataclass(frozen=True)
class Target:
    """One target of the issue: a ratio with its bound, or a yes/no check."""

    bench: str
    label: str
    short: str
    measured: float | None
    bound: float
    higher_is_better: bool
    reason: str = ""
    check: tuple[str, bool] | None = None
    """For a yes/no target: the value as the benchmark printed it, and whether it passed."""

    @classmethod
    def boolean(cls, bench: str, label: str, value: str, passed: bool) -> Target:
        return cls(bench, label, label, None, math.nan, True, check=(value, passed))

    @property
    def passed(self) -> bool:
        if self.check is not None:
            return self.check[1]
        if self.measured is None:
            return False
        if self.higher_is_better:
            return self.measured >= self.bound
        return self.measured <= self.bound

    @property
    def speed(self) -> float:
        """The measured ratio turned so that above 1 means ours is faster."""
        assert self.measured is not None
        return self.measured if self.higher_is_better else 1.0 / self.measured

    @property
    def target_speed(self) -> float:
        return self.bound if self.higher_is_better else 1.0 / self.bound

    def required_text(self, language: str = "en") -> str:
        if self.check is not None:
            return "yes" if language == "en" else "是"
        if self.bench == "loop":
            word = "overhead" if language == "en" else "开销"
            return f"{word} <= {1.0 / self.bound - 1.0:.0%}"
        return f"{'>=' if self.higher_is_better else '<='} {self.bound:g}x"

    def measured_text(self, language: str = "en") -> str:
        if self.check is not None:
            return self.check[0]
        if self.measured is None:
            return "-"
        if self.bench == "loop":
            word = "overhead" if language == "en" else "开销"
            return f"{word} {1.0 / self.measured - 1.0:.1%}"
        return f"{self.measured:.2f}x"


@dataclass
class Bench:
    """One benchmark script's run: its command, failure, targets and table rows."""

    name: str
    command: str
    failure: str
    targets: list[Target]
    rows: list[list[str]]
    data: dict[str, Any] = field(default_factory=dict)


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
            "date": "date",
            "cores": "cores",
            "cpu": "CPU",
            "python": "Python",
            "system": "system",
        },
        "command": "The report was produced by this command, which ran these scripts:",
        "not_run": "not run",
        "failed": "The script failed ({}); its numbers are missing.",
        "versions": "Versions",
        "sections": {
            "validate": (
                "Validation",
                "Microseconds per call, median over the schemas; "
                "`x ours` is the median of (that validator's time / ours).",
            ),
            "replay": (
                "Cassette replay",
                "Cassettes replayed through the loop with the "
                "`strict` checker beside plain vcrpy and the openai SDK.",
            ),
            "loop": (
                "Agent loop",
                "Events per second through the loop on a scripted "
                "session, with each invariant profile.",
            ),
            "generate": (
                "Argument generation",
                "Milliseconds per 50 drawn examples, median over the schemas each tool drew for.",
            ),
        },
        "heads": {
            "validate": [
                "validator",
                "valid: median us",
                "valid: x ours",
                "invalid: median us",
                "invalid: x ours",
                "schemas",
                "errors",
            ],
            "replay": ["side", "files", "total ms", "median ms", "p90 ms", "cassettes/s"],
            "loop": ["checker", "events/s", "overhead"],
            "generate": [
                "tool",
                "schemas",
                "failures",
                "median ms",
                "p90 ms",
                "undeclared keys",
                "invalid examples",
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
            "date": "日期",
            "cores": "核数",
            "cpu": "CPU",
            "python": "Python",
            "system": "系统",
        },
        "command": "本报告由下面的命令生成，它依次运行了这些脚本：",
        "not_run": "未运行",
        "failed": "脚本运行失败（{}），缺少它的数据。",
        "versions": "版本",
        "sections": {
            "validate": (
                "校验",
                "每次调用的微秒数，取各 schema 的中位数；"
                "`x ours` 是（该校验器耗时 / 我们的耗时）的中位数。",
            ),
            "replay": (
                "录像回放",
                "在启用 `strict` 检查器的循环中回放录像，与直接用 vcrpy 加 openai SDK 回放对比。",
            ),
            "loop": ("代理循环", "脚本化会话在循环中每秒处理的事件数，分别使用各个不变量配置。"),
            "generate": (
                "参数生成",
                "每抽取 50 个样例的毫秒数，取各工具成功抽样的 schema 的中位数。",
            ),
        },
        "heads": {
            "validate": [
                "校验器",
                "有效输入：中位微秒",
                "有效输入：x ours",
                "无效输入：中位微秒",
                "无效输入：x ours",
                "schema 数",
                "报告的错误",
            ],
            "replay": ["一方", "文件数", "总毫秒", "中位毫秒", "p90 毫秒", "录像/秒"],
            "loop": ["检查器", "事件/秒", "开销"],
            "generate": [
                "工具",
                "schema 数",
                "失败",
                "中位毫秒",
                "p90 毫秒",
                "未声明的键",
                "无效样例",
            ],
        },
    },
}

_ZH_LABELS = {
    "ours vs jsonschema iter_errors, valid inputs (x faster)": (
        "我们对比 jsonschema iter_errors，有效输入（快多少倍）"
    ),
    "ours vs jsonschema iter_errors, invalid inputs (x faster)": (
        "我们对比 jsonschema iter_errors，无效输入（快多少倍）"
    ),
    "ours replay_foreign (strict) total time / vcrpy + openai SDK": (
        "我们的 replay_foreign（strict）总耗时 / vcrpy 加 openai SDK"
    ),
    "invariant checker `seed`: overhead on events/s against `off`": (
        "不变量检查器 `seed`：相对 `off` 的每秒事件数开销"
    ),
    "invariant checker `strict`: overhead on events/s against `off`": (
        "不变量检查器 `strict`：相对 `off` 的每秒事件数开销"
    ),
    "ours draws valid examples for 100% of satisfiable schemas": (
        "对所有可满足的 schema 都能抽出有效样例"
    ),
    "ours: no undeclared keys": ("我们的样例没有未声明的键"),
}


def _label(language: str, target: Target) -> str:
    if language == "en":
        return target.label
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
    out += [f"## {text['machine']}", ""]
    out += [f"- {text['facts'][key]}: {facts[key]}" for key in text["facts"]]
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
        versions = _versions(bench)
        if versions:
            out += ["", f"{text['versions']}: {versions}."]
        out.append("")
    return "\n".join(out)

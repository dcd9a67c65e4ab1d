"""Why a goal is missed: the profile behind each kind of miss, in both languages.

``report.py`` lists every missed target under its own heading with the explanation
whose test matches the target; a miss no explanation matches is listed as unexplained,
so a new kind of miss shows up instead of passing in silence.
"""

from __future__ import annotations

from collections.abc import Callable

from _report_targets import Target

__all__ = ["HEADING", "NONE_MISSED", "UNEXPLAINED", "explain"]

HEADING = {"en": "Goals missed, and why", "zh": "未达成的目标及原因"}
NONE_MISSED = {"en": "Every goal is met.", "zh": "所有目标都已达成。"}
UNEXPLAINED = {
    "en": "no profile explains this miss yet.",
    "zh": "目前还没有能解释这一未达标的剖析结果。",
}

_COLD = {
    "en": (
        "in a sweep each call meets its value and its validator's code cold. Walking a "
        "realistic value while checking nothing costs about three times as much in a sweep "
        "as in a tight loop (1.2 µs against 3.4 µs per value on this corpus and machine), "
        "and every validator pays that. jsonschema spends tens of microseconds per call, so "
        "its sweep costs barely more than its tight loop; ours spends a few, so the same "
        "extra microseconds shrink the ratio. The extra is the value's memory, not checking "
        "work: a sweep over one hot value (`{}`) costs our generated functions 0.5 to 1.8 µs "
        "per call against 0.3 µs in a tight loop."
    ),
    "zh": (
        "在轮询方式下，每次调用遇到的值和校验器代码都是“冷”的。在这份语料和这台机器上，"
        "只遍历一个贴近实际的值而不做任何检查，轮询时的开销约为紧循环的三倍（每个值 3.4 "
        "微秒对 1.2 微秒），每个校验器都要付出这部分开销。jsonschema 每次调用要花几十微秒，"
        "所以它的轮询几乎不比紧循环慢；我们的只要几微秒，同样多出的几微秒就拉低了比值。"
        "多出的是值的内存访问，而不是检查工作：对同一个热的值（`{}`）轮询时，"
        "我们的生成函数每次调用 0.5 到 1.8 微秒，紧循环中为 0.3 微秒。"
    ),
}
_SMALL = {
    "en": (
        "a per-schema median weighs every schema alike, and most schemas of the corpus are "
        "small: there a call to ours is mostly its fixed cost (about 0.2 µs through "
        "`validate_args`), which a peer's per-call cost is measured against, while the "
        "total over the corpus, where large values weigh most, meets the goal."
    ),
    "zh": (
        "按 schema 取中位数时每个 schema 权重相同，而语料中的大多数 schema 都很小："
        "在这些 schema 上，我们的一次调用主要是固定开销（经由 `validate_args` 约 0.2 微秒），"
        "同类工具的单次开销是与它相比的；而在大值占主导的全语料总和上，目标是达成的。"
    ),
}
_NEAR = {
    "en": (
        "on the median schema, a small one, the two differ by a few percent in a sweep: a "
        "call to ours goes through `validate_args` (the function cached on the spec, the "
        "pattern budget, the guard that turns a raising value into a message), about "
        "0.1 µs that a direct call of fastjsonschema's function does not pay; both pay for "
        "the cold value (see the sweeps), and the total over the corpus is in our favour."
    ),
    "zh": (
        "在中位数 schema（一个小 schema）上，轮询时两者只差几个百分点：我们的一次调用要经过 "
        "`validate_args`（取出缓存在 spec 上的函数、模式时间预算、把抛异常的值变成消息的保护），"
        "约 0.1 微秒，而直接调用 fastjsonschema 的函数没有这部分开销；两者都要为“冷”的值付出"
        "开销（见轮询的说明），而全语料总和上我们更快。"
    ),
}
_REPLAY = {
    "en": (
        "the yardstick is the C parse of the same copies in a process of its own, and the "
        "step rows of the replay-scale comparison table break one cassette down in this "
        "run: the load (libyaml composes the node tree, our constructor builds the value) "
        "costs about one parse, and the secret scan on the loader's tree (the key "
        "patterns, the search for long runs, the reassembly of every stream's deltas to "
        "find a key cut across events) and the replay of the loaded cassette through the "
        "agent loop with the strict checker come on top. Beyond the compose, cProfile of "
        "the command over 1,000 copies spreads the time over Python code run once per "
        "event or per string, in the loop, the checker's rules, the wire readers and the "
        "scan, with no module of ours above about 6 % of it: what is left is the "
        "interpreter's cost per event and per string, not one step to remove."
    ),
    "zh": (
        "衡量基准是在独立进程中对同一批副本做的 C 解析；回放规模比较表中的各步骤行在本次运行中"
        "把一个录像拆开：加载（libyaml 组装节点树，我们的构造器构建值）约等于一次解析，"
        "在加载器节点树上的密钥扫描（密钥模式、长字符串的查找，以及为找出跨事件切开的密钥而"
        "重组每个流的增量）与已加载录像经智能体循环和 strict 检查器的回放都在此之上。"
        "在组装之外，对命令运行 1,000 个副本的 cProfile 显示，时间分散在按事件或按字符串执行"
        "的 Python 代码中（循环、检查器规则、线路读取器和扫描），我们没有哪个模块超过约 6%："
        "剩下的是解释器按事件、按字符串计的开销，而不是某一个可以去掉的步骤。"
    ),
}


_CLI_MEMORY = {
    "en": (
        "the command holds one cassette's replay at a time and spools its row, details and "
        "report entry to temporary files; what grows is the sorted list of the files it "
        "checks (each file's parts below its folder, about 180 bytes each)."
    ),
    "zh": (
        "命令一次只保留一个录像的回放，并把它的表格行、细节和报告条目写到临时文件；"
        "增长的是待检查文件的有序列表（每个文件在其目录下的路径部分，每个约 180 字节）。"
    ),
}
_PYTEST_MEMORY = {
    "en": (
        "pytest keeps every collected item for the whole session (its node id, parameters, "
        "marks and fixture information), so a suite of 10,000 parametrized cassette tests "
        "grows with its size; with `-n 2` every worker collects the whole suite as well."
    ),
    "zh": (
        "pytest 在整个会话中保留每个收集到的测试项（节点 id、参数、标记和 fixture 信息），"
        "所以 10,000 个参数化录像测试的套件会随规模增长；使用 `-n 2` 时，"
        "每个工作进程也都会收集整个套件。"
    ),
}

_FLOOR = {
    "en": (
        "the bare walk is the floor no validator goes below, and a low one: it takes each "
        "node off a stack and looks at its type, nothing more. For every node the generated "
        "function also tests the type the schema asks for, the node's constraints (lengths, "
        "bounds, enums, patterns, required and undeclared keys) and the lossless form of the "
        "value (exact plain types, finite numbers, text keys): the checking itself, which the "
        "walk leaves out and every validator that checks pays too. So on this corpus the "
        "generated function is not within 1.2 times of the bare walk."
    ),
    "zh": (
        "空遍历是任何校验器都低不过的下限，而且这个下限很低：它只是把每个节点从栈中取出并查看"
        "其类型，别无其他。对每个节点，生成函数还要检查 schema 要求的类型、节点的约束（长度、"
        "上下界、枚举、模式、必需键和未声明的键）以及值的无损形式（精确的普通类型、有限数、"
        "文本键）：这就是检查本身，空遍历把它省掉了，而每个做检查的校验器都要付出。因此在这份"
        "语料上，生成函数达不到空遍历的 1.2 倍以内。"
    ),
}
_SHARD_START = {
    "en": (
        "each shard is a process of its own: it starts the interpreter and imports the "
        "command, then lists the whole input set and deals it before it replays its part, a "
        "fixed cost paid once per shard whatever the share it gets. The replays themselves "
        "split; the fixed cost weighs less the more cassettes there are."
    ),
    "zh": (
        "每个分片都是一个独立进程：它要启动解释器、导入命令，然后列出全部输入并完成分配，"
        "之后才回放自己那一份；这是每个分片都要付一次的固定开销，与分到多少无关。回放本身"
        "是被分摊的；录像越多，固定开销的占比越小。"
    ),
}
_TEST_COST = {
    "en": (
        "a replayed test runs the whole stack for its two model requests: the plugin's "
        "fixtures open the shared cassette (vcrpy's load, the filters and matchers), the model "
        "builds an `AsyncOpenAI` client and its HTTP client, and each request goes through "
        "the openai SDK's request building and httpx's request and response models into "
        "vcrpy's stub and back, on anyio's event loop. The profile table of the section shows "
        "where the time goes: no layer holds much more than a sixth of it, and the largest, "
        "httpx and the openai SDK, are the libraries a live call runs too."
    ),
    "zh": (
        "一个回放测试要为它的两次模型请求走完整个栈：插件的 fixture 打开共享磁带（vcrpy 的加载、"
        "过滤器与匹配器），模型构建一个 `AsyncOpenAI` 客户端及其 HTTP 客户端，每个请求都要经过 "
        "openai SDK 构建请求、httpx 的请求与响应模型，进入 vcrpy 的桩再返回，运行在 anyio 的事件"
        "循环上。本节的剖析表给出了时间的去向：没有哪一层明显超过六分之一，而最大的 httpx 和 "
        "openai SDK，正是真实调用也要运行的库。"
    ),
}

_RULES: list[tuple[Callable[[Target], bool], dict[str, str]]] = [
    (lambda t: t.bench == "validate" and "bare walk" in t.label, _FLOOR),
    (lambda t: t.bench == "shards" and "CPU" in t.label, _SHARD_START),
    (lambda t: t.bench == "replay_test_cost", _TEST_COST),
    (lambda t: t.bench == "validate" and "fastjsonschema" in t.label, _NEAR),
    (lambda t: t.bench == "validate" and t.label.startswith("sweep"), _COLD),
    (lambda t: t.bench == "validate" and "per-schema median" in t.label, _SMALL),
    (lambda t: t.bench == "replay_scale" and "C YAML parse" in t.label, _REPLAY),
    (lambda t: t.bench == "replay_scale" and t.label.startswith("replay:"), _CLI_MEMORY),
    (lambda t: t.bench == "replay_scale" and t.label.startswith("pytest"), _PYTEST_MEMORY),
]


def explain(target: Target, language: str) -> str:
    """The explanation of a missed ``target`` in ``language``."""
    measured = f" {target.why[language]}" if language in target.why else ""
    for matches, text in _RULES:
        if matches(target):
            return text[language] + measured
    return UNEXPLAINED[language] + measured

"""The recording proxy's own cost per request, beside direct replay in process.

Three cassettes are recorded at the start through the proxy in front of a
`LoopbackModelServer`, into a temporary folder: a short text stream, a long text stream
of about 500 events and a tool call. Each becomes a cassette holding its one recorded
exchange once per request of a pass. Four sides then answer that recorded request,
asked by an ``httpx2`` client:

* direct: the client inside ``use_cassette`` (a VCR from ``make_vcr()``, mode none), the
  in-process replay, no socket;
* proxy thread: `proxy_cassette` on the same file, in a thread of this process, over a
  loopback socket;
* proxy process: the ``harness-conformance proxy`` command on the same file, started once
  per pass and stopped with SIGINT when every copy has been played;
* loopback server: `LoopbackModelServer` scripted with the same answer, no cassette: a
  local HTTP server written in Python, for reference.

The four are open at once and take turns request by request, the order rotated at each
step, so that the i-th request of every side plays the i-th copy (matching scans the
copies already played) and drift in machine load touches every side alike. The socket
sides keep one connection alive, through httpx2's transport under a subclass that
vcrpy's patch does not reach. Per request: the wall time, the CPU time of the client
thread, and on Linux the CPU time of the thread that served the connection
(``/proc/<pid>/task/<tid>/schedstat``). A proxy side's overhead is the median over the
steps of its time minus the direct side's at the same step. There is no target.

    python benchmarks/proxy.py            # 4 passes of 3 + 16 requests per side and cassette
    python benchmarks/proxy.py --quick    # 1 pass of 2 + 12
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2

from harness_conformance.cassettes import deserialize, make_vcr, serialize, use_cassette
from harness_conformance.proxy import proxy_cassette
from harness_conformance.server import LoopbackModelServer, TextResponse, ToolCallsResponse
from harness_conformance.wire import Response

DELAY_MS = 30.0
"""A request this much slower than its side's first quartile counts as delayed, on a
side whose first quartile is under a third of it (ordinary variance stays below)."""
FULL = {"passes": 4, "warmup": 3, "timed": 16}
QUICK = {"passes": 1, "warmup": 2, "timed": 12}
SIDES = {
    "direct": "direct replay in process",
    "thread": "proxy_cassette, thread of this process",
    "process": "harness-conformance proxy, own process",
    "loopback": "LoopbackModelServer, no cassette",
}
PROXIES = ("thread", "process")
HEADERS = {"content-type": "application/json"}
TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        },
    },
}


@dataclass(frozen=True)
class Kind:
    """One recorded exchange: the answer the loopback server gives and the request."""

    label: str
    answer: Response
    prompt: str
    tools: tuple[dict[str, Any], ...] = ()

    def body(self) -> bytes:
        request: dict[str, Any] = {
            "model": "deepseek-chat",
            "stream": True,
            "messages": [{"role": "user", "content": self.prompt}],
            "stream_options": {"include_usage": True},
        }
        if self.tools:
            request["tools"] = list(self.tools)
        return json.dumps(request).encode("utf-8")


KINDS = {
    "short": Kind("short text stream", TextResponse("Hello! How can I help you?"), "Greet me."),
    "long": Kind("long text stream", TextResponse("abcd " * 396, piece=4), "Write at length."),
    "tool": Kind(
        "tool call",
        ToolCallsResponse([("call_1", "get_weather", '{"city": "Paris", "unit": "celsius"}')]),
        "The weather in Paris?",
        (TOOL,),
    ),
}

_SOCKET_REQUEST = httpx2.HTTPTransport.handle_request


class SocketTransport(httpx2.HTTPTransport):
    """httpx2's own transport, taken before any cassette opens: vcrpy patches the
    attribute of ``httpx2.HTTPTransport``, which this subclass does not look up, so its
    requests reach their sockets while the direct side's cassette is open."""

    handle_request = _SOCKET_REQUEST


def _ran_ns(task: str | None) -> int | None:
    """Nanoseconds the thread ``task`` (``/proc/<pid>/task/<tid>``) has run, if known."""
    if task is None:
        return None
    try:
        with open(f"{task}/schedstat", encoding="ascii") as handle:
            return int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _tasks(pid: int) -> set[str]:
    try:
        return set(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return set()


@dataclass
class Samples:
    """Per timed request of one side, in step order (aligned across the sides)."""

    wall: list[float] = field(default_factory=list)
    cpu_client: list[float] = field(default_factory=list)
    cpu_server: list[float | None] = field(default_factory=list)


@dataclass
class Side:
    """One side in one pass: its client, its URL and the thread serving it."""

    name: str
    client: httpx2.Client
    url: str
    samples: Samples
    pid: int
    task: str | None = None
    """``/proc/<pid>/task/<tid>`` of the thread serving the connection, once seen."""

    def request(self, body: bytes, timed: bool) -> bytes:
        first = self.name != "direct" and self.task is None
        before = _tasks(self.pid) if first else set()
        served = _ran_ns(self.task)
        cpu = time.thread_time_ns()
        start = time.perf_counter_ns()
        response = self.client.post(self.url, content=body, headers=HEADERS)
        wall = time.perf_counter_ns() - start
        cpu = time.thread_time_ns() - cpu
        done = _ran_ns(self.task)
        if response.status_code != 200:
            raise SystemExit(f"{self.name}: HTTP {response.status_code}: {response.text[:800]}")
        if first:
            new = _tasks(self.pid) - before
            if len(new) == 1:
                self.task = f"/proc/{self.pid}/task/{new.pop()}"
        if timed:
            self.samples.wall.append(wall / 1e6)
            self.samples.cpu_client.append(cpu / 1e6)
            ran = None if served is None or done is None else (done - served) / 1e6
            self.samples.cpu_server.append(ran)
        return response.content


@dataclass(frozen=True)
class Recorded:
    """A cassette of one recorded exchange, copied once per request of a pass."""

    path: Path
    uri: str
    """Where the recorded request went."""
    answer: bytes
    """The body the client got while the exchange was recorded."""


def record(kind: Kind, folder: Path, copies: int) -> Recorded:
    """Record one exchange of ``kind`` through the proxy in front of a loopback server
    and write it ``copies`` times into a cassette."""
    folder.mkdir(parents=True)
    once = folder / "recorded.yaml"
    with (
        LoopbackModelServer(respond=lambda request: kind.answer) as server,
        proxy_cassette(once, upstream=server.origin, mode="once") as run,
        httpx2.Client(base_url=run.proxy.base_url) as client,
    ):
        answer = client.post("/v1/chat/completions", content=kind.body(), headers=HEADERS)
        # The proxy appends the exchange after it has sent the last byte, on the
        # handler's thread: wait for it before the block stops the proxy.
        deadline = time.monotonic() + 30
        while run.proxy.recorded < 1 and time.monotonic() < deadline:
            time.sleep(0.005)
    if run.report is None or not run.report.ok or run.report.recorded != 1:
        raise SystemExit(f"{kind.label}: recording failed: {run.report}")
    document = deserialize(once.read_text("utf-8"))
    uri = document["interactions"][0]["request"]["uri"]
    document["interactions"] = document["interactions"] * copies
    path = folder / "cassette.yaml"
    path.write_text(serialize(document), "utf-8")
    return Recorded(path, uri, answer.content)


@contextmanager
def _command(path: Path, log: Path) -> Iterator[tuple[str, int]]:
    """The proxy command replaying ``path`` until SIGINT: its base URL and process id."""
    command = [sys.executable, "-m", "harness_conformance", "proxy", str(path)]
    with log.open("w", encoding="utf-8") as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        assert process.stdout is not None
        base = process.stdout.readline().strip()
        if not base.startswith("http://"):
            raise SystemExit(f"the proxy command printed {base!r}:\n{log.read_text('utf-8')}")
        yield base, process.pid
    finally:
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=60)
    if process.returncode != 0:
        raise SystemExit(f"the proxy command exited {process.returncode}:\n{out}")


def run_pass(
    kind: Kind, recorded: Recorded, settings: dict[str, Any], samples: dict[str, Samples]
) -> None:
    """Every side plays every copy of the cassette once, side after side at each step;
    the side that starts a step moves on by one from one step to the next."""
    body, path = kind.body(), recorded.path
    route = urlsplit(recorded.uri).path
    with ExitStack() as stack:
        base, child = stack.enter_context(_command(path, path.with_suffix(".log")))
        loopback = stack.enter_context(LoopbackModelServer(respond=lambda request: kind.answer))
        clients = {
            name: stack.enter_context(httpx2.Client(transport=SocketTransport()))
            for name in ("thread", "process", "loopback")
        }
        clients["direct"] = stack.enter_context(httpx2.Client())
        stack.enter_context(use_cassette(make_vcr(), path, mode="none"))
        run = stack.enter_context(proxy_cassette(path))
        urls = {
            "direct": recorded.uri,
            "thread": run.proxy.base_url + route,
            "process": base + route,
            "loopback": loopback.origin + route,
        }
        pids = {"process": child}
        sides = [
            Side(name, clients[name], urls[name], samples[name], pids.get(name, os.getpid()))
            for name in SIDES
        ]
        gc.collect()
        gc.disable()
        try:
            for step in range(settings["warmup"] + settings["timed"]):
                first = step % len(sides)
                for side in sides[first:] + sides[:first]:
                    got = side.request(body, timed=step >= settings["warmup"])
                    if side.name != "loopback" and got != recorded.answer:
                        raise SystemExit(f"{side.name}: the answer differs from the recording")
        finally:
            gc.enable()
    if run.report is None or not run.report.ok:
        raise SystemExit(f"proxy_cassette: {run.report}")


def _stats(samples: list[float]) -> dict[str, Any]:
    """Median, quartiles and 90th percentile (nearest rank), and the spread: the
    interquartile range over the median."""
    ordered = sorted(samples)

    def at(share: float) -> float:
        return ordered[round(share * (len(ordered) - 1))]

    middle = statistics.median(ordered)
    return {
        "median": middle,
        "p25": at(0.25),
        "p75": at(0.75),
        "p90": at(0.90),
        "spread": (at(0.75) - at(0.25)) / middle if middle else None,
        "count": len(ordered),
    }


def summarise(samples: dict[str, Samples]) -> dict[str, Any]:
    """Each side's figures. A proxy side's overhead pairs its requests with the direct
    side's of the same steps; CPU totals count only the requests whose serving thread
    was seen."""
    direct = samples["direct"]
    out: dict[str, Any] = {}
    for name, mine in samples.items():
        row: dict[str, Any] = {
            "wall_ms": _stats(mine.wall),
            "cpu_client_ms": _stats(mine.cpu_client),
            "cpu_server_ms": None,
            "cpu_total_ms": _stats(mine.cpu_client) if name == "direct" else None,
        }
        if name != "direct":
            extra = [m - d for m, d in zip(mine.wall, direct.wall, strict=True)]
            row["overhead_ms"] = _stats(extra)
            row["x_direct"] = statistics.median(mine.wall) / statistics.median(direct.wall)
            quartile = row["wall_ms"]["p25"]
            row["p25_over_ms"] = quartile - _stats(direct.wall)["p25"]
            row["delayed"] = (
                sum(1 for wall in mine.wall if wall >= quartile + DELAY_MS)
                if quartile < DELAY_MS / 3
                else None
            )
            seen = [
                (client, server, base)
                for client, server, base in zip(
                    mine.cpu_client, mine.cpu_server, direct.cpu_client, strict=True
                )
                if server is not None
            ]
            if seen:
                row["cpu_server_ms"] = _stats([server for _, server, _ in seen])
                row["cpu_total_ms"] = _stats([client + server for client, server, _ in seen])
                row["cpu_overhead_ms"] = _stats([c + s - base for c, s, base in seen])
        out[name] = row
    return out


def _events(answer: bytes) -> int:
    return sum(1 for block in answer.split(b"\n\n") if block.strip())


def _figure(row: dict[str, Any] | None, key: str = "median", sign: str = "") -> str:
    return "-" if row is None else format(row[key], f"{sign}.3f")


def _passes(count: int) -> str:
    return f"{count} pass" if count == 1 else f"{count} passes"


def _print(kinds: dict[str, Any], results: dict[str, Any], settings: dict[str, Any]) -> None:
    print(
        f"the recording proxy beside direct replay: {_passes(settings['passes'])} of "
        f"{settings['warmup']} + {settings['timed']} requests per side and cassette; "
        "ms per request"
    )
    head = ["median", "p25", "p75", "p90", "cpu", "over", "x"]
    for name, kind in kinds.items():
        print(f"\n{kind['label']}: {kind['events']} events, {kind['response_bytes']:,} bytes")
        print(f"{'side':<40}" + "".join(f"{h:>8}" for h in head))
        for side, row in results[name].items():
            wall = row["wall_ms"]
            cells = [_figure(wall, key) for key in ("median", "p25", "p75", "p90")]
            cells.append(_figure(row["cpu_total_ms"]))
            cells.append(_figure(row.get("overhead_ms"), sign="+"))
            cells.append(f"{row['x_direct']:.2f}x" if "x_direct" in row else "-")
            print(f"{SIDES[side]:<40}" + "".join(f"{c:>8}" for c in cells))
    print(
        "\ncpu: the client thread plus the thread that served the connection; over: median "
        "of the step-by-step difference with direct replay; x: median time over direct's"
    )
    print("\nper-request overhead over direct replay:")
    for name, kind in kinds.items():
        parts = []
        for side in PROXIES:
            row = results[name][side]
            parts.append(
                f"{side} {row['overhead_ms']['median']:+.2f} ms ({row['x_direct']:.2f}x; "
                f"first quartiles {row['p25_over_ms']:+.2f} ms)"
            )
        print(f"  {kind['label']}: " + ", ".join(parts))
    delayed = [
        f"{kinds[name]['label']}, {side}: {row['delayed']} of {row['wall_ms']['count']}"
        for name, by_side in results.items()
        for side, row in by_side.items()
        if row.get("delayed")
    ]
    if delayed:
        print(f"requests at least {DELAY_MS:.0f} ms slower than their side's first quartile:")
        print("\n".join(f"  {line}" for line in delayed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one pass of 12 timed requests")
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    settings: dict[str, Any] = dict(QUICK if args.quick else FULL)
    settings["copies"] = settings["warmup"] + settings["timed"]
    settings["delay_ms"] = DELAY_MS
    began = time.perf_counter()
    samples = {name: {side: Samples() for side in SIDES} for name in KINDS}
    with tempfile.TemporaryDirectory(prefix="hc-proxy-bench-") as folder:
        cassettes = {
            name: record(kind, Path(folder) / name, settings["copies"])
            for name, kind in KINDS.items()
        }
        for _ in range(settings["passes"]):
            for name, kind in KINDS.items():
                run_pass(kind, cassettes[name], settings, samples[name])
    kinds = {
        name: {
            "label": kind.label,
            "events": _events(cassettes[name].answer),
            "response_bytes": len(cassettes[name].answer),
            "request_bytes": len(kind.body()),
        }
        for name, kind in KINDS.items()
    }
    results = {name: summarise(by_side) for name, by_side in samples.items()}
    seconds = time.perf_counter() - began
    _print(kinds, results, settings)
    print(f"\n{seconds:.1f} s in all")
    if args.json:
        result = {
            "settings": settings,
            "versions": {
                name: version(name) for name in ("harness-conformance", "httpx2", "vcrpy")
            },
            "sides": SIDES,
            "kinds": kinds,
            "results": results,
            "samples": {
                name: {side: vars(s) for side, s in by_side.items()}
                for name, by_side in samples.items()
            },
            "seconds": seconds,
        }
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

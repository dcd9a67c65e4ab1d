"""``harness-conformance mcp`` as a user runs it: a row per tool with counts per verdict,
the exit status, the JSON report, ``--reproduce``, a real server from PyPI, and no
process left behind after a run, Ctrl-C or SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _mcp_support import FAULTY, faulty, free_port, gone

pytest.importorskip("mcp")

pytestmark = pytest.mark.slow

COMMAND = [sys.executable, "-m", "harness_conformance", "mcp"]


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def _rows(stdout: str) -> dict[str, list[str]]:
    """The table rows by tool: the words after the tool's name."""
    rows = {}
    for line in stdout.splitlines():
        words = line.split()
        if len(words) > 2 and words[1].isdecimal():
            rows[words[0]] = words[1:]
    return rows


def test_a_real_server_from_pypi_passes() -> None:
    pytest.importorskip("mcp_server_time")
    done = _run("--examples", "8", "--", sys.executable, "-m", "mcp_server_time")
    assert done.returncode == 0, done.stdout + done.stderr
    # calls, rejected, rejected-unnamed, protocol-error, accepted, crashed, timed-out, result
    assert _rows(done.stdout) == {
        "get_current_time": ["8", "8", "0", "0", "0", "0", "0", "ok"],
        "convert_time": ["8", "8", "0", "0", "0", "0", "0", "ok"],
    }
    assert done.stdout.rstrip().endswith("passed")


def test_an_accepting_server_fails_with_a_reproducing_command(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    done = _run(
        "--examples",
        "4",
        "--json",
        str(report),
        "--",
        *faulty("--only", "checked", "--only", "lenient"),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert _rows(done.stdout) == {
        "checked": ["4", "4", "0", "0", "0", "0", "0", "ok"],
        "lenient": ["4", "0", "0", "0", "4", "0", "0", "FAIL"],
    }
    data = json.loads(report.read_text())
    assert data["failed"] is True
    assert data["totals"] == {"corrupt": {"rejected": 4, "accepted": 4}}
    assert [t["counts"] for t in data["tools"]] == [
        {"corrupt": {"rejected": 4}},
        {"corrupt": {"accepted": 4}},
    ]
    line = next(line for line in done.stdout.splitlines() if "reproduce:" in line)
    reproduce = line.split("reproduce: ", 1)[1]
    again = subprocess.run(
        reproduce.replace("harness-conformance", f"{sys.executable} -m harness_conformance", 1),
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert again.returncode == 1, again.stdout + again.stderr
    assert again.stdout.startswith("lenient: accepted (corrupt arguments changed at city)")


def test_reproducing_a_rejected_call_passes() -> None:
    example = json.dumps({"tool": "checked", "arguments": {"city": 5}, "path": "city"})
    done = _run("--reproduce", example, "--", *faulty("--only", "checked"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == "checked: rejected (corrupt arguments changed at city)"
    assert "5 is not of type 'string'" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give the server's command after --, or its URL with --url"),
        (("--env", "NOPE", "--", "true"), "--env 'NOPE': write NAME=VALUE"),
        (("--url", "ftp://x", "--", "true"), "'ftp://x' is not an http:// or https:// URL"),
        (("--reproduce", "[1]", "--", "true"), "needs a string 'tool' and an object 'arguments'"),
    ],
)
def test_bad_usage_is_one_line_and_status_2(args: tuple[str, ...], message: str) -> None:
    done = _run(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.count("\n") == 1


def test_no_process_is_left_after_a_run(tmp_path: Path) -> None:
    child = tmp_path / "child.pid"
    done = _run("--examples", "2", "--", *faulty("--only", "checked", "--child", str(child)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert gone(int(child.read_text()))


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_no_process_is_left_after_an_interruption(tmp_path: Path, how: signal.Signals) -> None:
    child = tmp_path / "child.pid"
    command = [*COMMAND, "--timeout", "60", "--", *faulty("--only", "hangs", "--child", str(child))]
    running = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not child.exists() or not child.read_text():
            assert running.poll() is None, running.communicate()
            assert time.monotonic() < deadline, "the server never started"
            time.sleep(0.05)
        pid = int(child.read_text())
        time.sleep(1.0)  # the hanging call is under way
        running.send_signal(how)
        out, err = running.communicate(timeout=30)
    finally:
        if running.poll() is None:
            running.kill()
            running.communicate()  # reaped, its pipes closed, whatever failed above
    assert running.returncode == 130, out + err
    assert "harness-conformance mcp: interrupted" in err
    assert gone(pid)
    assert not _servers_of(str(child))


def _servers_of(marker: str) -> list[int]:
    """Processes whose command line holds ``marker``, this test's faulty server."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdecimal() and int(proc.name) != os.getpid():
            try:
                words = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in words and b"faulty_server.py" in b" ".join(words):
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(proc.name))
    return found


def test_a_streamable_http_server_started_by_the_command(tmp_path: Path) -> None:
    port = free_port()
    child = tmp_path / "child.pid"
    server = faulty("--only", "lenient", "--http", str(port), "--child", str(child))
    done = _run("--examples", "3", "--url", f"http://127.0.0.1:{port}/mcp", "--", *server)
    assert done.returncode == 1, done.stdout + done.stderr
    assert _rows(done.stdout)["lenient"] == ["3", "0", "0", "0", "3", "0", "0", "FAIL"]
    assert gone(int(child.read_text()))
    assert not _servers_of(str(child))


def test_a_relative_script_needs_cwd_and_the_failure_says_so() -> None:
    here = str(FAULTY.parent)
    relative = [sys.executable, FAULTY.name, "--only", "checked"]
    lost = subprocess.run(
        [*COMMAND, "--examples", "2", "--", *relative],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=here,
    )
    assert lost.returncode == 1
    stopped = next(line for line in lost.stdout.splitlines() if line.startswith("stopped:"))
    assert stopped.startswith("stopped: the server did not start")
    assert "can't open file" in stopped  # the server's own last words
    assert "fresh temporary directory" in stopped
    assert "(--cwd)" in stopped
    found = subprocess.run(
        [*COMMAND, "--examples", "2", "--cwd", ".", "--", *relative],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=here,
    )
    assert found.returncode == 0, found.stdout + found.stderr

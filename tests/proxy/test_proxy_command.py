"""The ``proxy`` command as a separate process, driven by clients in other processes
and languages (Python's ``urllib``, ``curl``, Node's ``fetch``): recorded in front of
the loopback server, replayed with the server stopped, and a changed prompt reported
as a miss in the output, the exit status and the JSON report."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.server import LoopbackModelServer, TextResponse

pytestmark = pytest.mark.slow

CHAT = "/v1/chat/completions"
START_LIMIT = 30.0


def _body(prompt: str) -> bytes:
    messages = [{"role": "user", "content": prompt}]
    return json.dumps({"model": "m", "messages": messages, "stream": True}).encode()


def _python(base: str, prompt: str) -> bytes:
    request = urllib.request.Request(
        base + CHAT, data=_body(prompt), headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            data: bytes = answer.read()
            return data
    except urllib.error.HTTPError as error:
        failed: bytes = error.read()
        return failed


def _curl(base: str, prompt: str) -> bytes:
    done = subprocess.run(
        [
            "curl",
            "-sS",
            "-N",
            "-H",
            "content-type: application/json",
            "--data-binary",
            "@-",
            base + CHAT,
        ],
        input=_body(prompt),
        capture_output=True,
        timeout=30,
        check=True,
    )
    return done.stdout


NODE_CLIENT = """
const [url, body] = process.argv.slice(1);
const headers = {"content-type": "application/json"};
const answer = await fetch(url, {method: "POST", body, headers});
let text = "";
for await (const piece of answer.body) text += Buffer.from(piece).toString("utf8");
process.stdout.write(text);
"""


def _node(base: str, prompt: str) -> bytes:
    done = subprocess.run(
        ["node", "--input-type=module", "-e", NODE_CLIENT, base + CHAT, _body(prompt).decode()],
        capture_output=True,
        timeout=30,
        check=True,
    )
    return done.stdout


def _clients() -> list[Any]:
    found: list[Any] = [_python]
    if shutil.which("curl"):
        found.append(_curl)
    if shutil.which("node"):
        found.append(_node)
    return found


@dataclass
class _Run:
    base_url: str
    process: subprocess.Popen[bytes]
    stdout: str = ""
    stderr: str = ""
    status: int | None = None


@contextmanager
def _proxy(*args: str, env: dict[str, str] | None = None) -> Iterator[_Run]:
    command = [sys.executable, "-m", "harness_conformance", "proxy", *args]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    assert process.stdout is not None
    try:
        ready, _, _ = select.select([process.stdout], [], [], START_LIMIT)
        assert ready, "the proxy printed no base URL"
        line = process.stdout.readline().decode().strip()
        assert line.startswith("http://127.0.0.1:"), line
        run = _Run(line, process)
        yield run
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        run.stdout, run.stderr, run.status = out.decode(), err.decode(), process.returncode
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_other_processes_record_and_replay_through_the_command(tmp_path: Path) -> None:
    cassette = tmp_path / "clients.yaml"
    report = tmp_path / "report.json"
    clients = _clients()
    prompts = [f"Hello from {client.__name__.strip('_')}" for client in clients]
    script = [TextResponse(f"Answer {number}", piece=3) for number in range(len(clients))]
    with LoopbackModelServer(script) as server:
        upstream = server.origin
        with _proxy(str(cassette), "--upstream", upstream, "--record-mode", "once") as run:
            recorded = [client(run.base_url, p) for client, p in zip(clients, prompts, strict=True)]
    assert run.status == 0, run.stderr
    assert f"{len(clients)} exchange" in run.stdout
    assert all(b"data: [DONE]" in body for body in recorded)
    # The server is stopped: the replay has only the cassette, and CI forces no recording.
    with _proxy(str(cassette), "--json", str(report), env={"CI": "1"}) as run:
        replayed = [client(run.base_url, p) for client, p in zip(clients, prompts, strict=True)]
    assert run.status == 0, run.stderr
    assert replayed == recorded
    data = json.loads(report.read_text())
    assert (data["served"], data["recorded"], data["ok"], data["upstream"]) == (
        len(clients),
        0,
        True,
        upstream,
    )
    done = subprocess.run(
        [sys.executable, "-m", "harness_conformance", "replay", str(cassette)],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def test_a_changed_prompt_fails_the_command_with_the_miss(tmp_path: Path) -> None:
    cassette = tmp_path / "hello.yaml"
    report = tmp_path / "report.json"
    with (
        LoopbackModelServer([TextResponse("Hi")]) as server,
        _proxy(str(cassette), "--upstream", server.origin, "--record-mode", "once") as run,
    ):
        _python(run.base_url, "Hello")
    assert run.status == 0, run.stderr
    with _proxy(str(cassette), "--json", str(report)) as run:
        answer = json.loads(_python(run.base_url, "Goodbye"))
    assert answer["error"]["code"] == "CASSETTE_MISMATCH"
    assert run.status == 1
    assert "miss: CASSETTE_MISMATCH" in run.stderr
    assert "Goodbye" in run.stdout
    assert run.stdout.rstrip().endswith("FAIL")
    data = json.loads(report.read_text())
    assert [miss["code"] for miss in data["misses"]] == ["CASSETTE_MISMATCH"]
    assert data["ok"] is False


def test_recording_without_an_upstream_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness_conformance",
            "proxy",
            str(tmp_path / "new.yaml"),
            "--record-mode",
            "once",
        ],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert b"--upstream" in done.stderr
    assert not (tmp_path / "new.yaml").exists()


@pytest.mark.parametrize("port", ["-1", "70000"])
def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path, port: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness_conformance",
            "proxy",
            str(tmp_path / "c.yaml"),
            "--port",
            port,
        ],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert b"is not a port number" in done.stderr


def test_a_fault_is_served_in_place_of_the_recording_then_the_recording(tmp_path: Path) -> None:
    cassette = tmp_path / "hello.yaml"
    report = tmp_path / "report.json"
    with (
        LoopbackModelServer([TextResponse("Hi")]) as server,
        _proxy(str(cassette), "--upstream", server.origin, "--record-mode", "once") as run,
    ):
        recorded = _python(run.base_url, "Hello")
    with _proxy(str(cassette), "--fault", "status:429,retry-after=3", "--json", str(report)) as run:
        refused = json.loads(_python(run.base_url, "Hello"))
        retried = _python(run.base_url, "Hello")
    assert run.status == 0, run.stderr
    assert refused["error"]["type"] == "requests"
    assert retried == recorded
    assert "fault 429 retry-after on interaction 0: served" in run.stdout
    (fault,) = json.loads(report.read_text())["faults"]
    assert fault == {
        "label": "429 retry-after",
        "fault": {"interaction": 0, "kind": "status", "status": 429, "retry_after": 3},
        "served": True,
    }


def test_a_fault_that_cannot_be_served_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "harness_conformance", "proxy"),
            *(str(tmp_path / "c.yaml"), "--fault", "melt"),
        ],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert b"unknown kind 'melt'" in done.stderr

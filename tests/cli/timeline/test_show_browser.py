"""The ``show --html`` page in a real headless Chromium: its script runs from ``file://``
under the page's own Content-Security-Policy, and the counts it computes match the page.

The browser is ``$HC_CHROMIUM`` when that names a file, otherwise the first of
`BROWSERS` on ``PATH``; without one the browser tests skip and say how to install it.
The page loads nothing from the network, and Chromium runs with its background
networking off.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness_conformance.cassettes import replay_foreign
from harness_conformance.cli import main
from harness_conformance.events import (
    AssistantChunkEvent,
    StepStartEvent,
    ToolCallEvent,
    TurnStartEvent,
)
from harness_conformance.invariants import check_log
from harness_conformance.session_log import read_session_log

ROOT = Path(__file__).resolve().parents[3]
CASSETTE = (
    ROOT
    / "tests"
    / "corpora"
    / "cassettes"
    / "crewai"
    / ("TestAzureNativeToolCalling.test_azure_parallel_native_tool_calling_test_agent_kickoff.yaml")
)
LOG = ROOT / "tests" / "corpora" / "upstream-sessions" / "multi-turn" / "session.jsonl"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
COUNTED = {
    "sessions": "session",
    "turns": "turn",
    "steps": "step",
    "chunks": "chunk",
    "tool-calls": "tool-call",
    "errors": "error",
    "violations": "violation",
    "invalid-calls": "invalid-call",
}
"""``data-*`` attribute the script sets on ``<html>`` -> the class it counts."""


def find_browser() -> str | None:
    configured = os.environ.get("HC_CHROMIUM", "")
    if configured and Path(configured).is_file():
        return configured
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def browser_or_skip() -> str:
    browser = find_browser()
    if browser is None:
        pytest.skip(
            "no Chromium installed: set HC_CHROMIUM to a Chromium binary or put one of "
            f"{', '.join(BROWSERS)} on PATH (Debian: apt-get install -y chromium)"
        )
    return browser


class Elements(HTMLParser):
    """Every start tag: the ``<html>`` attributes and how many elements carry each class."""

    def __init__(self) -> None:
        super().__init__()
        self.root: dict[str, str] = {}
        self.classes: Counter[str] = Counter()
        self.tags: Counter[str] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.root = values
        self.tags[tag] += 1
        self.classes.update(set(values.get("class", "").split()))


def elements(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    parser.close()
    return parser


def run_browser(browser: str, tmp_path: Path, page: Path, *extra: str) -> str:
    profile = tmp_path / "profile"
    completed = subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return completed.stdout


def write_page(source: Path, target: Path) -> str:
    status = main(["show", str(source), "--html", str(target)])
    assert status in (0, 1)
    return target.read_text("utf-8")


@pytest.mark.slow
def test_script_runs_and_counts_match_the_page(tmp_path: Path) -> None:
    browser = browser_or_skip()
    page = tmp_path / "cassette.html"
    static = elements(write_page(CASSETTE, page))
    assert static.root.get("data-ready") == "0"
    dumped = elements(run_browser(browser, tmp_path, page, "--dump-dom"))
    assert dumped.root.get("data-ready") == "1", "the page script did not run"
    for attribute, cls in COUNTED.items():
        assert dumped.root[f"data-{attribute}"] == str(static.classes[cls]), attribute
    events = replay_foreign(CASSETTE).events
    kinds = Counter(type(event) for event in events)
    assert dumped.root["data-turns"] == str(kinds[TurnStartEvent])
    assert dumped.root["data-steps"] == str(kinds[StepStartEvent])
    assert dumped.root["data-chunks"] == str(kinds[AssistantChunkEvent])
    assert dumped.root["data-tool-calls"] == str(kinds[ToolCallEvent])
    assert dumped.root["data-violations"] == "0"


@pytest.mark.slow
def test_violations_are_counted_and_marked_in_the_browser(tmp_path: Path) -> None:
    browser = browser_or_skip()
    lines = LOG.read_text("utf-8").splitlines(keepends=True)
    first_end = next(i for i, line in enumerate(lines) if '"type":"turn/end"' in line)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(lines[:first_end] + lines[first_end + 1 :]), "utf-8")
    violations = check_log(broken)
    assert violations
    page = tmp_path / "broken.html"
    static = elements(write_page(broken, page))
    dumped = elements(run_browser(browser, tmp_path, page, "--dump-dom"))
    assert dumped.root.get("data-ready") == "1"
    assert dumped.root["data-violations"] == str(len(violations))
    turns = sum(isinstance(e, TurnStartEvent) for e in read_session_log(broken).events)
    assert dumped.root["data-turns"] == str(turns) == str(static.classes["turn"])
    # The script marks every scope that holds a violation, for the "violations only" filter.
    assert static.classes["has-violation"] == 0
    assert dumped.classes["has-violation"] >= len({v.seq for v in violations})


@pytest.mark.slow
def test_screenshot_is_written(tmp_path: Path) -> None:
    browser = browser_or_skip()
    page = tmp_path / "cassette.html"
    write_page(CASSETTE, page)
    shot = tmp_path / "page.png"
    run_browser(browser, tmp_path, page, f"--screenshot={shot}", "--window-size=1200,900")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 1000


def test_without_a_browser_the_tests_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HC_CHROMIUM", str(tmp_path / "no-such-browser"))
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    assert find_browser() is None
    with pytest.raises(pytest.skip.Exception, match="no Chromium installed"):
        browser_or_skip()


def test_hc_chromium_names_the_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = tmp_path / "my-chromium"
    binary.write_text("", "utf-8")
    monkeypatch.setenv("HC_CHROMIUM", str(binary))
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    assert find_browser() == str(binary)

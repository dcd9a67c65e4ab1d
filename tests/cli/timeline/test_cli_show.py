"""``harness-conformance show``: the text timeline, the HTML page, exit codes and errors.

Every count and line the tests expect is derived here from the events themselves
(`replay_foreign`, `read_session_log`, `check_log`), never taken from the renderer.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness_conformance.cassettes import replay_foreign
from harness_conformance.cli import _show as _cli_show
from harness_conformance.cli import main
from harness_conformance.events import (
    AssistantChunkEvent,
    DurableEvent,
    StepStartEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from harness_conformance.invariants import check_log
from harness_conformance.session_log import read_session_log

ROOT = Path(__file__).resolve().parents[3]
CASSETTES = ROOT / "tests" / "corpora" / "cassettes"
SESSIONS = ROOT / "tests" / "corpora" / "upstream-sessions"
PARALLEL = (
    CASSETTES
    / "crewai"
    / ("TestAzureNativeToolCalling.test_azure_parallel_native_tool_calling_test_agent_kickoff.yaml")
)
MULTI_SESSION = CASSETTES / "crewai" / "test_native_tool_calling_error_handling.yaml"
INVALID_CALL = (
    CASSETTES
    / "magentic"
    / ("test_openai_chat_model_complete_ollama[Return [1, 2, 3, 4, 5]-output_types2-list].yaml")
)
CANCELLED = SESSIONS / "cancel-tool-calls" / "session.jsonl"
ALL_LOGS = sorted(SESSIONS.glob("*/session*.jsonl"))


# -- helpers --------------------------------------------------------------------------


class Node:
    """One element of a parsed page."""

    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node] = []
        self.parts: list[str] = []

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(self.parts) + "".join(child.text() for child in self.children)

    def find(self, cls: str) -> list[Node]:
        found = [self] if cls in self.classes else []
        for child in self.children:
            found.extend(child.find(cls))
        return found

    def every(self) -> list[Node]:
        return [self, *(node for child in self.children for node in child.every())]


class TreeParser(HTMLParser):
    VOID = frozenset({"meta", "input", "link", "br", "img", "hr", "source", "base"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.at = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.at)
        self.at.children.append(node)
        if tag not in self.VOID:
            self.at = node

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.at
        while node is not None and node.tag != tag:
            node = node.parent
        assert node is not None, f"stray </{tag}>"
        assert node.parent is not None, f"stray </{tag}>"
        self.at = node.parent

    def handle_data(self, data: str) -> None:
        self.at.parts.append(data)


def parse(page: str) -> Node:
    parser = TreeParser()
    parser.feed(page)
    parser.close()
    assert parser.at is parser.root, "an element is left open"
    return parser.root


def plural(count: int, word: str) -> str:
    return f"{count} {word if count == 1 else word + 's'}"


def expected_counts(events: list[DurableEvent], violations: int) -> dict[str, int]:
    """What a timeline of these events holds, counted straight from the events."""
    kinds = Counter(type(event) for event in events)
    errors = sum(
        1 for e in events if isinstance(e, ToolResultEvent) and (e.is_error or e.error)
    ) + sum(1 for e in events if isinstance(e, TurnEndEvent) and e.reason.get("kind") == "error")
    return {
        "turns": kinds[TurnStartEvent],
        "steps": kinds[StepStartEvent],
        "chunks": kinds[AssistantChunkEvent],
        "tool calls": kinds[ToolCallEvent],
        "errors": errors,
        "violations": violations,
    }


def drop_turn_end(source: Path, target: Path) -> Path:
    """A copy of ``source`` with its first ``turn/end`` line removed."""
    lines = source.read_text("utf-8").splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "turn/end")
    target.write_text("".join(lines[:first] + lines[first + 1 :]), "utf-8")
    return target


def show(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["show", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- text -----------------------------------------------------------------------------


def test_text_of_a_cassette_with_tool_calls(capsys: pytest.CaptureFixture[str]) -> None:
    replay = replay_foreign(PARALLEL)
    events = list(replay.events)
    status, out, _ = show([str(PARALLEL)], capsys)
    assert status == 0
    counts = expected_counts(events, len(replay.violations))
    assert counts["tool calls"] >= 2
    header = out.splitlines()[1]
    assert header.startswith(
        f"{plural(len(replay.sessions), 'session')}, {plural(counts['turns'], 'turn')}, "
        f"{plural(counts['steps'], 'step')}, {plural(counts['tool calls'], 'tool call')}, "
    )
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    for call in calls:
        assert f"tool call {call.name} [{call.call_id}] (seq {call.seq}): {call.arguments}" in out
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert len(re.findall(r"^ +-> (error )?result", out, re.M)) == len(results)
    chunks_per_step = Counter(
        (e.turn, e.step) for e in events if isinstance(e, AssistantChunkEvent)
    )
    shown = [int(n) for n in re.findall(r"^ +(\d+) chunks? \(seq", out, re.M)]
    assert shown == list(chunks_per_step.values())
    first = replay.sessions[0]
    assert f"session 1 of {len(replay.sessions)}: model {first.model}, " in out


def test_text_flags_invalid_recorded_tool_calls(capsys: pytest.CaptureFixture[str]) -> None:
    replay = replay_foreign(INVALID_CALL)
    assert replay.invalid_tool_calls
    status, out, _ = show([str(INVALID_CALL)], capsys)
    assert status == 0
    lines = out.splitlines()
    for invalid in replay.invalid_tool_calls:
        at = next(i for i, line in enumerate(lines) if f"[{invalid.call_id}]" in line)
        flagged = [line.strip() for line in lines[at + 1 : at + 1 + len(invalid.messages)]]
        assert flagged == [f"?? invalid arguments: {m}" for m in invalid.messages]


def test_text_of_an_upstream_session_log(capsys: pytest.CaptureFixture[str]) -> None:
    events = list(read_session_log(CANCELLED).events)
    status, out, _ = show([str(CANCELLED)], capsys)
    assert status == 0
    errors = [e for e in events if isinstance(e, ToolResultEvent) and e.error]
    assert errors
    for result in errors:
        assert result.error is not None
        code = f"-> error result {result.error['name']} {result.error['code']} (seq {result.seq})"
        assert code in out
    for end in (e for e in events if isinstance(e, TurnEndEvent)):
        assert f"end (seq {end.seq}): {end.reason['kind']}" in out


@pytest.mark.parametrize("log", ALL_LOGS, ids=lambda p: str(p.relative_to(SESSIONS)))
def test_every_upstream_log_shows_every_turn_and_passes(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = list(read_session_log(log).events)
    status, out, _ = show([str(log)], capsys)
    assert status == 0
    starts = [e for e in events if isinstance(e, TurnStartEvent)]
    assert re.findall(r"^  turn (\d+) \(seq (\d+)\)$", out, re.M) == [
        (str(e.turn), str(e.seq)) for e in starts
    ]
    ends = [e for e in events if isinstance(e, TurnEndEvent) and e.reason.get("kind") == "error"]
    for end in ends:
        assert f"error {end.reason['error']['code']}" in out


def _seqs_named(line: str) -> set[int]:
    named = {int(n) for n in re.findall(r"seq (\d+)\b(?!-)", line)}
    for low, high in re.findall(r"seq (\d+)-(\d+)", line):
        named.update(range(int(low), int(high) + 1))
    return named


def test_a_violation_is_printed_at_its_event_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = drop_turn_end(SESSIONS / "multi-turn" / "session.jsonl", tmp_path / "broken.jsonl")
    violations = check_log(broken)
    assert any(v.rule == "turn-pairing" for v in violations)
    status, out, _ = show([str(broken)], capsys)
    assert status == 1
    lines = out.splitlines()
    for violation in violations:
        wanted = f"!! seq {violation.seq} [{violation.rule}] {violation.message}"
        at = next(i for i, line in enumerate(lines) if line.strip() == wanted)
        above = next(line for line in reversed(lines[:at]) if not line.strip().startswith("!!"))
        assert violation.seq in _seqs_named(above), (above, wanted)
    status, out, _ = show([str(broken), "--invariants", "seed"], capsys)
    seed = check_log(broken, "seed")
    assert status == (1 if seed else 0)
    assert out.count("!! seq") == len(seed)


def test_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing.yaml"
    status, out, err = show([str(missing)], capsys)
    assert status == 2
    assert out == ""
    assert str(missing) in err
    assert "no such file" in err


def test_unreadable_log_and_cassette_name_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "bad.jsonl"
    good = CANCELLED.read_text("utf-8").splitlines()
    log.write_text("\n".join([*good[:2], "{not json", *good[3:]]) + "\n", "utf-8")
    status, _, err = show([str(log)], capsys)
    assert status == 2
    assert f"{log}, line 3" in err
    cassette = tmp_path / "bad.yaml"
    cassette.write_text("interactions: [\n", "utf-8")
    status, _, err = show([str(cassette)], capsys)
    assert status == 2
    assert str(cassette) in err
    assert "line" in err


def test_session_selects_one_session(capsys: pytest.CaptureFixture[str]) -> None:
    replay = replay_foreign(MULTI_SESSION)
    total = len(replay.sessions)
    assert total >= 2
    status, out, _ = show([str(MULTI_SESSION), "--session", str(total)], capsys)
    assert status == 0
    assert re.findall(r"^session (\d+) of (\d+)", out, re.M) == [(str(total), str(total))]
    status, _, err = show([str(MULTI_SESSION), "--session", str(total + 1)], capsys)
    assert status == 2
    assert "out of range" in err


# -- HTML -----------------------------------------------------------------------------


def _page(tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, Node]:
    target = tmp_path / "page.html"
    status, out, _ = show([str(source), "--html", str(target)], capsys)
    assert f"wrote {target}" in out
    return status, parse(target.read_text("utf-8"))


def _assert_self_contained(page: Node) -> None:
    nodes = page.every()
    assert not [n for n in nodes if n.tag == "link"]
    scripts = [n for n in nodes if n.tag == "script"]
    assert len(scripts) == 1
    assert "src" not in scripts[0].attrs
    for node in nodes:
        for name in ("src", "href", "action", "srcset", "poster", "data"):
            value = node.attrs.get(name, "")
            assert not re.match(r"\s*(https?:)?//", value), (node.tag, name, value)
    (policy,) = [n for n in nodes if n.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert policy.attrs["content"].startswith("default-src 'none';")


def test_html_of_a_cassette_with_tool_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = replay_foreign(PARALLEL)
    events = list(replay.events)
    status, page = _page(tmp_path, PARALLEL, capsys)
    assert status == 0
    _assert_self_contained(page)
    counts = expected_counts(events, len(replay.violations))
    assert len(page.find("turn")) == counts["turns"]
    assert len(page.find("step")) == counts["steps"]
    assert len(page.find("chunk")) == counts["chunks"]
    assert len(page.find("error")) == counts["errors"]
    assert len(page.find("violation")) == 0
    for details in (n for n in page.every() if n.tag == "details"):
        assert "open" not in details.attrs
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    shown = page.find("tool-call")
    assert [(n.attrs["data-call-id"], n.attrs["data-name"]) for n in shown] == [
        (c.call_id, c.name) for c in calls
    ]
    for node, call in zip(shown, calls, strict=True):
        (arguments,) = node.find("arguments")
        assert json.loads(arguments.text()) == json.loads(call.arguments)
    totals = {n.attrs["data-total"]: int(n.text()) for n in page.every() if "data-total" in n.attrs}
    assert totals["sessions"] == len(replay.sessions)
    for name in ("turns", "steps", "tool calls", "errors", "violations"):
        assert totals[name.replace(" ", "-")] == counts[name], name


def test_html_marks_violations_at_their_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = drop_turn_end(SESSIONS / "multi-turn" / "session.jsonl", tmp_path / "broken.jsonl")
    violations = check_log(broken)
    events = list(read_session_log(broken).events)
    status, page = _page(tmp_path, broken, capsys)
    assert status == 1
    _assert_self_contained(page)
    marks = page.find("violation")
    assert [(int(n.attrs["data-seq"]), n.attrs["data-rule"]) for n in marks] == [
        (v.seq, v.rule) for v in violations
    ]
    ids = {n.attrs["id"] for n in page.every() if "id" in n.attrs}
    for mark in marks:
        assert mark.parent is not None
        assert mark.parent.attrs["id"] == f"seq-{mark.attrs['data-seq']}"
        holder = mark.parent.parent
        assert holder is not None
        assert holder.attrs.get("data-seq") == mark.attrs["data-seq"]
    links = [n.attrs["href"] for n in page.every() if n.tag == "a"]
    assert links == [f"#seq-{v.seq}" for v in violations]
    assert all(link[1:] in ids for link in links)
    assert len(page.find("turn")) == sum(isinstance(e, TurnStartEvent) for e in events)


def test_html_escapes_recorded_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = '</pre><script>document.title="owned"</script><img src=x onerror=alert(1)>'
    source = SESSIONS / "tool-call-turn" / "session.jsonl"
    rows = []
    for line in source.read_text("utf-8").splitlines():
        row = json.loads(line)
        if row.get("type") == "tool/call":
            row["data"]["arguments"] = json.dumps({"path": hostile})
        if row.get("type") == "user/message":
            row["data"]["content"] = [{"type": "text", "text": hostile}]
        rows.append(json.dumps(row))
    log = tmp_path / "hostile.jsonl"
    log.write_text("\n".join(rows) + "\n", "utf-8")
    target = tmp_path / "hostile.html"
    assert main(["show", str(log), "--html", str(target)]) == 0
    raw = target.read_text("utf-8")
    assert "<script>document" not in raw
    assert "<img" not in raw
    page = parse(raw)
    _assert_self_contained(page)
    assert not [n for n in page.every() if n.tag == "img"]
    (call,) = page.find("tool-call")
    (arguments,) = call.find("arguments")
    assert json.loads(arguments.text()) == {"path": hostile}
    assert any(hostile in n.text() for n in page.find("user"))


def test_html_write_is_atomic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "page.html"
    target.write_text("old page", "utf-8")

    def broken_render(*_args: object) -> str:
        raise RuntimeError("rendering failed")

    with monkeypatch.context() as patch:
        patch.setattr(_cli_show, "render_html", broken_render)
        with pytest.raises(RuntimeError, match="rendering failed"):
            main(["show", str(PARALLEL), "--html", str(target)])
    assert target.read_text("utf-8") == "old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]

    def broken_replace(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", broken_replace)
        status, _, err = show([str(PARALLEL), "--html", str(target)], capsys)
    assert status == 2
    assert str(target) in err
    assert "No space left" in err
    assert target.read_text("utf-8") == "old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]

    status, _, _ = show([str(PARALLEL), "--html", str(target)], capsys)
    assert status == 0
    assert target.read_text("utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_html_into_a_missing_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "absent" / "page.html"
    status, _, err = show([str(PARALLEL), "--html", str(target)], capsys)
    assert status == 2
    assert "does not exist" in err
    assert not target.parent.exists()


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        ("error-reason-failure.jsonl", "error AUTH: simulated provider error (HTTP 401)"),
        ("error-reason-flat.jsonl", "error TRANSPORT: the provider is unreachable"),
    ],
)
def test_older_error_reason_layouts_show_their_code(
    log: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference's older ``turn/end`` layouts (``reason.failure``, a flat message and
    code) show the same code and message as ``reason.error`` does."""
    assert main(["show", str(ROOT / "tests" / "fixtures_session_logs" / log)]) == 0
    assert expected in capsys.readouterr().out

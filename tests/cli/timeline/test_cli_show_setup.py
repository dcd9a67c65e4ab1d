"""``show`` draws each session's setup: the system text and the tool definitions the
model was given, collapsed on the page and one line each in the text.

A cassette's setup comes from its recorded request bodies (here a recording made
against a loopback server from a scenario whose texts are hostile markup); a session
log's from its ``request/header`` event, a real list of definitions or the reference's
``{{system}}`` / ``{{tools}}`` placeholders, shown as recorded.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness_conformance.cli import main
from harness_conformance.server import (
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

ROOT = Path(__file__).resolve().parents[3]
TEXT_TURN = ROOT / "tests" / "corpora" / "upstream-sessions" / "text-turn" / "session.jsonl"
ENV = "HC_TEST_SHOW_SETUP_KEY"
HOSTILE = '</pre></details><script>document.title="owned"</script><img src=x onerror=alert(1)>'
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": HOSTILE}},
    "required": ["city"],
}


class Element:
    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs = tag, attrs
        self.classes = set(attrs.get("class", "").split())
        self.children: list[Element] = []
        self.parts: list[str] = []

    def text(self) -> str:
        return "".join(self.parts) + "".join(child.text() for child in self.children)

    def find(self, cls: str) -> list[Element]:
        found = [self] if cls in self.classes else []
        for child in self.children:
            found.extend(child.find(cls))
        return found

    def tags(self) -> list[str]:
        return [self.tag, *(tag for child in self.children for tag in child.tags())]


class Page(HTMLParser):
    VOID = frozenset({"meta", "input", "br", "img"})

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]
        self.feed(text)
        self.close()
        assert self.stack == [self.root], "an element is left open"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in self.VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].parts.append(data)


def _html(source: Path, tmp_path: Path) -> tuple[str, Element]:
    target = tmp_path / "page.html"
    assert main(["show", str(source), "--html", str(target)]) == 0
    raw = target.read_text("utf-8")
    return raw, Page(raw).root


def _recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ENV, "sk-" + "show-setup-test-7d1e0b94c2")
    scenario = tmp_path / "scenario.yaml"
    document = {
        "system": f"Be terse.\n{HOSTILE}",
        "prompts": ["Weather in Paris?"],
        "tools": [
            {
                "name": "get_weather",
                "description": f"Current weather. {HOSTILE}",
                "parameters": PARAMETERS,
                "result": "sunny",
            },
            {"name": "noop", "parameters": {"type": "object", "properties": {}}, "result": "ok"},
        ],
    }
    scenario.write_text(yaml.safe_dump(document), encoding="utf-8")
    cassette = tmp_path / "recorded.yaml"
    script: list[ScriptEntry] = [
        ToolCallsResponse([("c1", "get_weather", '{"city": "Paris"}')]),
        TextResponse("ok"),
    ]
    with LoopbackModelServer(script) as server:
        arguments = [str(scenario), "-o", str(cassette), "--base-url", server.base_url]
        assert main(["record", *arguments, "--api-key-env", ENV]) == 0
    return cassette


def test_a_cassettes_system_and_tools_are_collapsed_and_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = _recorded(tmp_path, monkeypatch)
    raw, page = _html(cassette, tmp_path)
    assert "<script>document" not in raw
    assert "<img" not in raw
    assert "img" not in page.tags()
    (system,) = page.find("system")
    assert system.tag == "details"
    assert "open" not in system.attrs
    (text,) = system.find("system-text")
    assert text.text() == f"Be terse.\n{HOSTILE}"
    (tools,) = page.find("tools")
    assert tools.tag == "details"
    assert "open" not in tools.attrs
    definitions = tools.find("tool-def")
    assert [d.attrs["data-name"] for d in definitions] == ["get_weather", "noop"]
    (description,) = definitions[0].find("description")
    assert description.text() == f"Current weather. {HOSTILE}"
    (parameters,) = definitions[0].find("parameters")
    assert json.loads(parameters.text()) == PARAMETERS
    assert definitions[1].find("description") == []
    assert json.loads(definitions[1].find("parameters")[0].text()) == {
        "type": "object",
        "properties": {},
    }
    # the tool definitions are not counted as tool calls
    assert len(page.find("tool-call")) == 1

    capsys.readouterr()
    assert main(["show", str(cassette)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  system: Be terse.\\n" + HOSTILE in lines
    assert "  tools: get_weather, noop" in lines


def _log_with_header(tmp_path: Path, header: dict[str, Any]) -> Path:
    rows = []
    for line in TEXT_TURN.read_text("utf-8").splitlines():
        row = json.loads(line)
        if row.get("type") == "request/header":
            row["data"]["header"].update(header)
        rows.append(json.dumps(row))
    log = tmp_path / "session.jsonl"
    log.write_text("\n".join(rows) + "\n", "utf-8")
    return log


def test_a_logs_request_header_definitions_are_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = [
        {"name": "read_file", "description": HOSTILE, "parameters": PARAMETERS},
        {"name": "bash", "inputSchema": {"type": "object"}},
    ]
    log = _log_with_header(tmp_path, {"system": "You are a coding agent.", "tools": tools})
    raw, page = _html(log, tmp_path)
    assert "<script>document" not in raw
    (system,) = page.find("system-text")
    assert system.text() == "You are a coding agent."
    definitions = page.find("tool-def")
    assert [d.attrs["data-name"] for d in definitions] == ["read_file", "bash"]
    assert definitions[0].find("description")[0].text() == HOSTILE
    assert json.loads(definitions[0].find("parameters")[0].text()) == PARAMETERS
    assert json.loads(definitions[1].find("parameters")[0].text()) == {"type": "object"}

    capsys.readouterr()
    assert main(["show", str(log)]) == 0
    out = capsys.readouterr().out
    assert "  system: You are a coding agent.\n  tools: read_file, bash\n" in out


def test_reference_placeholders_are_shown_as_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = json.loads(
        next(
            line for line in TEXT_TURN.read_text("utf-8").splitlines() if '"request/header"' in line
        )
    )["data"]["header"]
    _raw, page = _html(TEXT_TURN, tmp_path)
    (system,) = page.find("system-text")
    assert system.text() == header["system"]
    (recorded,) = page.find("tools-as-recorded")
    assert recorded.text() == header["tools"]
    assert page.find("tool-def") == []

    capsys.readouterr()
    assert main(["show", str(TEXT_TURN)]) == 0
    out = capsys.readouterr().out
    assert f"\n  system: {header['system']}\n  tools, as recorded: {header['tools']}\n" in out


def test_a_log_without_a_header_shows_no_setup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        line for line in TEXT_TURN.read_text("utf-8").splitlines() if '"request/header"' not in line
    ]
    log = tmp_path / "session.jsonl"
    log.write_text("\n".join(rows) + "\n", "utf-8")
    target = tmp_path / "page.html"
    assert main(["show", str(log), "--html", str(target)]) == 1  # a seq is missing
    page = Page(target.read_text("utf-8")).root
    assert page.find("setup") == []
    capsys.readouterr()
    assert main(["show", str(log)]) == 1
    out = capsys.readouterr().out
    assert "  system: " not in out
    assert "  tools" not in out

"""The scenarios ``tox -e live-reference`` runs the released reference command line
through, and the pins it installs it from.

The live runs need Node.js and the npm registry, so the suite checks what it can without
them: the scenarios are well formed and cover what the runs must cover, the router
answers title requests apart from the task's, and every package is pinned exactly.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from harness_conformance.errors import CODES
from harness_conformance.server import (
    ErrorResponse,
    RecordedRequest,
    TextResponse,
    ToolCallsResponse,
)

RUNNER = Path(__file__).resolve().parents[2] / "runners" / "live-reference"


@pytest.fixture(scope="module")
def scenarios() -> ModuleType:
    spec = importlib.util.spec_from_file_location("live_scenarios", RUNNER / "scenarios.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def request(body: object) -> RecordedRequest:
    return RecordedRequest("POST", "/v1/chat/completions", {}, body, json.dumps(body).encode())


def test_the_scenarios_cover_what_the_live_runs_must(scenarios: ModuleType) -> None:
    chosen = scenarios.SCENARIOS
    names = [scenario.name for scenario in chosen]
    assert len(names) == len(set(names)) >= 15
    endings = {json.dumps(dict(s.ending), sort_keys=True) for s in chosen}
    assert {
        '{"kind": "completed"}',
        '{"kind": "max-tokens"}',
        '{"code": "AUTH", "kind": "error"}',
        '{"code": "SERVER", "kind": "error"}',
        '{"code": "CONTENT_FILTER", "kind": "error"}',
    } <= endings
    replies = [reply for scenario in chosen for reply in scenario.replies]
    statuses = {reply.status for reply in replies if isinstance(reply, ErrorResponse)}
    assert {401, 429, 500} <= statuses
    calls = [c for reply in replies if isinstance(reply, ToolCallsResponse) for c in reply.calls]
    assert any(len(reply.calls) > 1 for reply in replies if isinstance(reply, ToolCallsResponse))
    tools = {name for _, name, _ in calls}
    assert {"read", "write", "edit", "bash", "glob", "read_image", "no_such_tool"} <= tools
    image, compacted = [scenario for scenario in chosen if scenario.patch is not None]
    assert yaml.safe_load(image.patch)[0]["id"] == "llm-deepseek"
    assert any(isinstance(content, bytes) for content in image.files.values())
    assert compacted.compactions > 0
    assert compacted.not_reenactable == "compaction"
    assert ErrorResponse(429, headers={"retry-after": "0"}) in compacted.replies
    assert any(not _parses(arguments) for _, _, arguments in calls)
    assert any(isinstance(reply, TextResponse) and reply.reasoning for reply in replies)
    assert any(isinstance(reply, TextResponse) and reply.text == "" for reply in replies)


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_each_scenario_is_well_formed(scenarios: ModuleType) -> None:
    for scenario in scenarios.SCENARIOS:
        assert scenario.task.strip(), scenario.name
        assert scenario.replies, scenario.name
        kind = scenario.ending["kind"]
        assert kind in {"completed", "error", "max-tokens"}, scenario.name
        if kind == "error":
            assert scenario.ending["code"] in CODES, scenario.name
        assert (scenario.exit_code == 0) == (kind == "completed"), scenario.name
        assert set(scenario.made).isdisjoint(scenario.files) or kind == "completed"


def test_the_router_answers_title_requests_apart(scenarios: ModuleType) -> None:
    scenario = scenarios.SCENARIOS[0]
    router = scenarios.Router(scenario)
    assert router.script() == [router] * (len(scenario.replies) + 1)
    title = {
        "model": "m",
        "messages": [{"role": "system", "content": scenarios.TITLE_PROMPT + " for this."}],
    }
    task = {"model": "m", "messages": [{"role": "user", "content": scenario.task}], "tools": [{}]}
    assert scenarios.is_title_request(request(title))
    assert not scenarios.is_title_request(request(task))
    assert not scenarios.is_title_request(request({**title, "tools": [{}]}))
    assert not scenarios.is_title_request(request("not an object"))
    assert router(request(task)) == scenario.replies[0]
    assert router(request(title)) == TextResponse("A title")
    leftover = router(request(task))
    assert isinstance(leftover, ErrorResponse)
    assert leftover.status == 599
    assert router.asked == ["turn", "title", "turn"]


def test_the_router_answers_compaction_requests_with_the_summary(scenarios: ModuleType) -> None:
    [scenario] = [s for s in scenarios.SCENARIOS if s.compactions]
    router = scenarios.Router(scenario)
    assert len(router.script()) == len(scenario.replies) + 1 + scenario.compactions
    compact = {
        "model": "m",
        "tools": [{}],
        "messages": [
            {"role": "user", "content": scenario.task},
            {"role": "user", "content": scenarios.COMPACTION_PROMPT + " for this session."},
        ],
    }
    assert scenarios.is_compaction_request(request(compact))
    assert not scenarios.is_title_request(request(compact))
    assert router(request(compact)) == TextResponse(scenarios.SUMMARY)
    assert router.replies == list(scenario.replies)


@pytest.mark.slow
def test_every_package_is_pinned_exactly() -> None:
    tools = json.loads((RUNNER / "package.json").read_text(encoding="utf-8"))["dependencies"]
    dsh = json.loads((RUNNER / "dsh" / "package.json").read_text(encoding="utf-8"))
    for version in [*tools.values(), *dsh["dependencies"].values()]:
        assert version[0].isdigit(), version
    assert dsh["dependencies"] == {"@deepseek-ai/dsh": "0.1.0-rc.8"}
    lock = yaml.safe_load((RUNNER / "dsh" / "pnpm-lock.yaml").read_text(encoding="utf-8"))
    workspace = yaml.safe_load((RUNNER / "dsh" / "pnpm-workspace.yaml").read_text(encoding="utf-8"))
    assert lock["overrides"] == workspace["overrides"]
    assert workspace["overrides"]["@deepseek-ai/cordis"] == "4.0.1"
    [importer] = lock["importers"].values()
    assert importer["dependencies"]["@deepseek-ai/dsh"]["specifier"] == "0.1.0-rc.8"
    versions = {key.rsplit("@", 1)[1] for key in lock["packages"] if "@deepseek-ai/dsh" in key}
    assert versions == {"0.1.0-rc.8"}

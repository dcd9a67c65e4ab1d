"""The cassettes shipped in ``fixtures/cassettes/`` replay cleanly and stay what they claim.

Corpus copies are byte-identical to the third-party files in ``tests/corpora/cassettes``
(chat-completions) and ``tests/corpora/provider-cassettes`` (the other wire formats) and
fully attributed; loopback recordings show the behaviour their name promises and
are reproduced by the regenerator; no file holds a secret.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from _scripts import load_script

from harness_conformance.cassettes import ForeignReplay, find_secrets, replay_foreign, sse_items
from harness_conformance.events import StepStartEvent, ToolCallEvent, ToolResultEvent

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "fixtures" / "cassettes"
CORPUS = SHIPPED / "corpus"
PROVIDERS = SHIPPED / "providers"
LOOPBACK = SHIPPED / "loopback"
SOURCE = ROOT / "tests" / "corpora" / "cassettes"
PROVIDER_SOURCE = ROOT / "tests" / "corpora" / "provider-cassettes"
ATTRIBUTION = SHIPPED / "ATTRIBUTION.md"
WIRE_FORMATS = ("anthropic-messages", "openai-responses", "gemini")

CASSETTES = sorted(SHIPPED.rglob("*.yaml"))
CORPUS_FILES = sorted(CORPUS.rglob("*.yaml"))
PROVIDER_FILES = sorted(PROVIDERS.rglob("*.yaml"))
LOOPBACK_NAMES = sorted(path.stem for path in LOOPBACK.glob("*.yaml"))


def _id(path: Path) -> str:
    return path.relative_to(SHIPPED).as_posix()


@functools.cache
def _replay(path: Path) -> ForeignReplay:
    return replay_foreign(path)


def _loopback(name: str) -> ForeignReplay:
    return _replay(LOOPBACK / f"{name}.yaml")


def test_the_shipped_set_is_there() -> None:
    assert 10 <= len(CORPUS_FILES) <= 16
    for wire in WIRE_FORMATS:
        assert len(list((PROVIDERS / wire).rglob("*.yaml"))) >= 3, wire
    assert {
        "plain_text",
        "reasoning",
        "tool_call",
        "parallel_tool_calls",
        "invalid_args",
        "rate_limit_retry",
        "auth_error",
        "insufficient_balance",
        "multi_turn",
        "max_tokens",
    } <= set(LOOPBACK_NAMES)


@pytest.mark.parametrize("path", CASSETTES, ids=_id)
def test_replays_through_the_loop_without_violations(path: Path) -> None:
    replay = _replay(path)
    assert replay.interactions > 0
    assert replay.skipped == ()
    assert replay.violations == ()
    assert all(session.unplayed == () for session in replay.sessions)


@pytest.mark.parametrize("path", CASSETTES, ids=_id)
def test_holds_no_secret(path: Path) -> None:
    assert find_secrets(path.read_text(encoding="utf-8")) == []


# -- the corpus copies -------------------------------------------------------------------


def test_provider_attribution_agrees_with_the_provider_corpus() -> None:
    readme = (PROVIDER_SOURCE / "README.md").read_text(encoding="utf-8")
    index = (PROVIDER_SOURCE / "INDEX.md").read_text(encoding="utf-8")
    for name, cells in _attributed().items():
        if not name.startswith("providers/"):
            continue
        project = Path(name).parts[2]
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{project}` |"))
        assert cells[1].strip("`") in row, name
        assert f"| `{Path(name).name}` | {cells[2]} |" in index, name


@pytest.mark.parametrize("path", CORPUS_FILES, ids=_id)
def test_corpus_copy_is_byte_identical_to_its_source(path: Path) -> None:
    source = SOURCE / path.relative_to(CORPUS)
    assert path.read_bytes() == source.read_bytes()


@pytest.mark.parametrize("path", PROVIDER_FILES, ids=_id)
def test_provider_copy_is_byte_identical_to_its_source(path: Path) -> None:
    relative = path.relative_to(PROVIDERS)
    assert path.read_bytes() == (PROVIDER_SOURCE / relative).read_bytes()
    licence = path.parent / "LICENSE"
    assert licence.read_bytes() == (PROVIDER_SOURCE / relative.parent / "LICENSE").read_bytes()


@pytest.mark.parametrize("path", PROVIDER_FILES, ids=_id)
def test_provider_copy_replays_in_the_format_of_its_folder(path: Path) -> None:
    wire = path.relative_to(PROVIDERS).parts[0]
    replay = _replay(path)
    assert replay.sessions
    assert {session.wire for session in replay.sessions} == {wire}
    played = [event for event in replay.events if isinstance(event, ToolCallEvent)]
    assert len(played) == replay.tool_calls


def _attributed() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in ATTRIBUTION.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `((?:corpus|providers)/[^`]+)` \|(.*)\|$", line)
        if match:
            rows[match[1]] = [cell.strip() for cell in match[2].split("|")]
    return rows


def test_attribution_lists_exactly_the_corpus_files() -> None:
    listed = _attributed()
    assert sorted(listed) == sorted(_id(path) for path in CORPUS_FILES + PROVIDER_FILES)
    for name, cells in listed.items():
        repository, commit, original, licence, why = cells
        assert re.fullmatch(
            r"\[[\w.-]+/[\w.-]+\]\(https://github\.com/[\w.-]+/[\w.-]+\)", repository
        )
        assert re.fullmatch(r"`[0-9a-f]{40}`", commit), name
        assert original.strip("`").endswith(Path(name).name), name
        assert licence in {"MIT", "Apache-2.0"}, name
        assert why, name


def test_attribution_agrees_with_the_corpus_readme() -> None:
    readme = (SOURCE / "README.md").read_text(encoding="utf-8")
    for name, cells in _attributed().items():
        if name.startswith("providers/"):
            continue
        project = Path(name).parts[1]
        commit = cells[1].strip("`")
        assert f"| `{project}` |" in readme
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{project}` |"))
        assert commit in row, name
        assert f"| {cells[2]} |" in readme, name


@pytest.mark.parametrize("folder", sorted(p for p in CORPUS.iterdir() if p.is_dir()), ids=str)
def test_each_project_folder_carries_its_licence_unchanged(folder: Path) -> None:
    licence = folder / "LICENSE"
    assert licence.read_bytes() == (SOURCE / folder.name / "LICENSE").read_bytes()


def test_the_corpus_covers_what_the_attribution_claims() -> None:
    texts = {path: path.read_text(encoding="utf-8") for path in CORPUS_FILES}
    replays = {path: _replay(path) for path in CORPUS_FILES}
    assert any("!!binary" in text for text in texts.values())
    assert any("parsed_body" in text for text in texts.values())
    assert any("reasoning_content" in text for text in texts.values())
    assert any("api.deepseek.com" in text for text in texts.values())
    assert any(".openai.azure.com" in text for text in texts.values())
    assert any("api.groq.com" in text for text in texts.values())
    errors = [
        reason
        for replay in replays.values()
        for session in replay.sessions
        for reason in session.turn_reasons
        if reason["kind"] == "error"
    ]
    assert errors
    assert any(replay.invalid_tool_calls for replay in replays.values())
    assert any(_max_calls_in_one_step(replay) >= 2 for replay in replays.values())


# -- the loopback recordings -------------------------------------------------------------


def _max_calls_in_one_step(replay: ForeignReplay) -> int:
    counts: dict[tuple[int, int, int], int] = {}
    for number, session in enumerate(replay.sessions):
        for event in session.events:
            if isinstance(event, ToolCallEvent):
                key = (number, event.turn, event.step)
                counts[key] = counts.get(key, 0) + 1
    return max(counts.values(), default=0)


def _reasons(replay: ForeignReplay) -> list[dict[str, Any]]:
    return [reason for session in replay.sessions for reason in session.turn_reasons]


def test_plain_text_is_one_completed_turn_without_tools() -> None:
    replay = _loopback("plain_text")
    assert _reasons(replay) == [{"kind": "completed"}]
    assert replay.tool_calls == 0


def test_reasoning_streams_reasoning_before_text() -> None:
    kinds = [type(getattr(e, "chunk", None)).__name__ for e in _loopback("reasoning").events]
    first_reasoning = kinds.index("ReasoningDeltaChunk")
    first_text = kinds.index("TextDeltaChunk")
    assert first_reasoning < first_text


def test_tool_call_runs_the_canned_result_then_answers() -> None:
    replay = _loopback("tool_call")
    results = [e for e in replay.events if isinstance(e, ToolResultEvent)]
    assert [r.is_error for r in results] == [False]
    assert "sunny, 21 C" in repr(results[0].message)
    assert _reasons(replay) == [{"kind": "completed"}]


def test_parallel_tool_calls_come_in_one_step() -> None:
    replay = _loopback("parallel_tool_calls")
    assert _max_calls_in_one_step(replay) == 3
    text = (LOOPBACK / "parallel_tool_calls.yaml").read_text(encoding="utf-8")
    indexes = [int(i) for i in re.findall(r'"index":(\d),"function":\{"arguments":', text)]
    assert indexes[:3] == [0, 1, 2], "argument deltas are interleaved across the calls"


def test_invalid_args_is_reported_and_corrected() -> None:
    replay = _loopback("invalid_args")
    assert [(c.tool, c.arguments) for c in replay.invalid_tool_calls] == [
        ("celsius_to_fahrenheit", '{"celsius": "twenty"}')
    ]
    results = [e for e in replay.events if isinstance(e, ToolResultEvent)]
    assert [r.is_error for r in results] == [True, False]
    assert results[0].error == {"name": "ToolArgsError", "code": "INVALID_ARGS"}
    assert _reasons(replay) == [{"kind": "completed"}]


def test_rate_limit_is_retried_inside_the_step() -> None:
    replay = _loopback("rate_limit_retry")
    document = yaml.safe_load((LOOPBACK / "rate_limit_retry.yaml").read_text(encoding="utf-8"))
    statuses = [i["response"]["status"]["code"] for i in document["interactions"]]
    assert statuses == [429, 200]
    assert document["interactions"][0]["response"]["headers"]["retry-after"] == ["0"]
    steps = [e for e in replay.events if isinstance(e, StepStartEvent)]
    assert len(steps) == 1
    assert _reasons(replay) == [{"kind": "completed"}]


@pytest.mark.parametrize(
    ("name", "code"), [("auth_error", "AUTH"), ("insufficient_balance", "QUOTA")]
)
def test_provider_error_ends_the_turn_with_its_code(name: str, code: str) -> None:
    [reason] = _reasons(_loopback(name))
    assert reason["kind"] == "error"
    assert reason["error"]["code"] == code


def test_multi_turn_is_one_session_of_two_turns() -> None:
    replay = _loopback("multi_turn")
    assert len(replay.sessions) == 1
    assert replay.sessions[0].prompts == (
        "Pick a colour of the rainbow.",
        "Name a fruit of that colour.",
    )
    assert _reasons(replay) == [{"kind": "completed"}, {"kind": "completed"}]


def test_max_tokens_ends_the_turn_max_tokens() -> None:
    assert _reasons(_loopback("max_tokens")) == [{"kind": "max-tokens"}]


# -- the regenerator ---------------------------------------------------------------------

_VOLATILE_KEYS = frozenset({"id", "created", "created_at", "completed_at", "recorded_at", "host"})
_PORT = re.compile(r"127\.0\.0\.1:\d+")


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in _VOLATILE_KEYS}
    if isinstance(value, list):
        return [_stable(item) for item in value]
    if isinstance(value, str):
        return _PORT.sub("127.0.0.1:<port>", value)
    return value


def _interactions(path: Path) -> Any:
    interactions = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"]
    for item in interactions:  # bodies are text: compare their values, ids and times aside
        for body in (item["request"]["body"], item["response"]["body"]):
            if isinstance(body, dict) and isinstance(body.get("sse"), str):
                body["sse"] = (sse_items(body["sse"]) or ([], "", ""))[0]
            if isinstance(body, dict) and isinstance(body.get("json"), str):
                body["json"] = json.loads(body["json"])
    return _stable(interactions)


def _generator() -> ModuleType:
    return load_script(ROOT / "scripts" / "record_loopback_fixtures.py")


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("loopback")
    regenerate: Callable[..., list[Path]] = _generator().regenerate
    written = regenerate(out)
    assert sorted(path.stem for path in written) == LOOPBACK_NAMES
    return out


@pytest.mark.parametrize("name", LOOPBACK_NAMES)
def test_regenerator_reproduces_the_shipped_interactions(regenerated: Path, name: str) -> None:
    assert _interactions(regenerated / f"{name}.yaml") == _interactions(LOOPBACK / f"{name}.yaml")


# -- the loopback recordings of the other wire formats ------------------------------------

FORMAT_FILES = sorted(path for path in LOOPBACK.glob("*/*.yaml"))


def test_every_other_format_has_its_loopback_recordings() -> None:
    generator = _generator()
    for wire in WIRE_FORMATS:
        assert sorted(p.stem for p in (LOOPBACK / wire).glob("*.yaml")) == sorted(
            generator.FORMAT_SCENARIOS
        ), wire


@pytest.mark.parametrize("path", FORMAT_FILES, ids=_id)
def test_a_format_recording_replays_in_its_format_as_the_chat_one_does(path: Path) -> None:
    replay = _replay(path)
    chat = _loopback(path.stem)
    assert [session.wire for session in replay.sessions] == [path.parent.name]
    assert _reasons(replay) == _reasons(chat)
    calls = [(e.name, e.arguments) for e in replay.events if isinstance(e, ToolCallEvent)]
    chat_calls = [(e.name, e.arguments) for e in chat.events if isinstance(e, ToolCallEvent)]
    assert [name for name, _ in calls] == [name for name, _ in chat_calls]
    assert [json.loads(a) for _, a in calls] == [json.loads(a) for _, a in chat_calls]


@pytest.fixture(scope="module")
def regenerated_formats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("loopback-formats")
    _generator().regenerate_formats(out)
    return out


@pytest.mark.parametrize("path", FORMAT_FILES, ids=_id)
def test_regenerator_reproduces_the_format_recordings(
    regenerated_formats: Path, path: Path
) -> None:
    again = regenerated_formats / path.relative_to(LOOPBACK)
    assert _interactions(again) == _interactions(path)

"""A declared key reaches none of the library's other outputs: the `Secret` type's
reprs, event-log snapshots, ``record --log`` session logs and summary lines, and the
``show`` command's text and HTML."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import pytest

from harness_conformance import Agent, ScriptedModel
from harness_conformance.cassettes import REDACTED, SECRET_ENV_VARS, Secret, live_secrets
from harness_conformance.cli import main
from harness_conformance.events import DurableEvent, event_to_json
from harness_conformance.models import text_reply
from harness_conformance.redaction._redact import redact_events
from harness_conformance.server import LoopbackModelServer, TextResponse
from harness_conformance.session_log import write_session_log
from harness_conformance.snapshots import EventLogSnapshot

KEY = "sk-" + "out-test-7d2c9a4e1f6b3a8c5e0d"
ENV = "HC_TEST_OUTPUT_KEY"


@pytest.fixture(autouse=True)
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def leaky_events(piece: int = 4) -> list[DurableEvent]:
    """A session whose prompt holds the key and whose reply echoes it in small chunks."""
    agent = Agent(ScriptedModel([text_reply(f"noted: {KEY}, bye", piece=piece)]))
    agent.run_sync(f"my key is {KEY}")
    return [event for event in agent.events if event.durable]


def chunk_text(lines: list[dict[str, object]]) -> str:
    return "".join(
        str(line["data"]["chunk"].get("text", ""))  # type: ignore[index]
        for line in lines
        if line.get("type") == "assistant/chunk"
    )


# -- the Secret type ---------------------------------------------------------------------


def test_a_secret_shows_only_its_length() -> None:
    secret = Secret(KEY)
    for shown in (repr(secret), str(secret), f"{secret}", f"{secret!r:>60}", f"{[secret]}"):
        assert KEY not in shown
        assert KEY[3:] not in shown
    assert repr(secret) == f"Secret('sk-…({len(KEY)} chars)')"
    assert repr(Secret("short-value")) == "Secret('…(11 chars)')"
    assert secret.reveal() == KEY
    assert Secret(secret) == secret
    assert hash(Secret(KEY)) == hash(secret)
    assert secret != KEY, "a Secret is not text"
    assert copy.deepcopy(secret) is secret
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(secret)
    with pytest.raises(TypeError, match="holds text"):
        Secret(42)  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        secret._value = "other"


def test_declared_secrets_are_secrets_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert live_secrets([Secret("given-value-123")]) == (Secret(KEY), Secret("given-value-123"))
    assert KEY not in repr(live_secrets())


# -- event logs ----------------------------------------------------------------------------


def test_redacting_events_replaces_the_key_even_across_chunks() -> None:
    events = leaky_events()
    assert KEY in chunk_text([event_to_json(e) for e in events])
    cleaned = redact_events(events, [Secret(KEY)])
    lines = [event_to_json(event) for event in cleaned]
    assert KEY not in json.dumps(lines)
    assert KEY[6:18] not in json.dumps(lines)
    assert chunk_text(lines) == f"noted: {REDACTED}, bye"
    assert [e.seq for e in cleaned] == [e.seq for e in events]
    kept = [a is b for a, b in zip(events, cleaned, strict=True) if a.type.endswith("/start")]
    assert kept
    assert all(kept), "an event without the key is returned as it is"
    assert redact_events(events, []) == events


def test_an_event_log_snapshot_holds_no_declared_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    text = EventLogSnapshot().serialize(leaky_events())
    assert KEY not in text
    lines = [json.loads(line) for line in text.splitlines()[1:]]
    assert chunk_text(lines) == f"noted: {REDACTED}, bye"
    assert f"my key is {REDACTED}" in text


def test_an_event_log_snapshot_extension_can_declare_more_keys() -> None:
    class Declared(EventLogSnapshot):
        secrets = (Secret(KEY),)

    assert KEY not in Declared().serialize(leaky_events(piece=100))
    assert KEY in EventLogSnapshot().serialize(leaky_events(piece=100))


# -- record --log and its summary ----------------------------------------------------------


def test_record_writes_no_key_into_the_log_the_cassette_or_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV, KEY)
    cassette, log = tmp_path / "echo.yaml", tmp_path / "echo.jsonl"
    with LoopbackModelServer([TextResponse(f"noted: {KEY}", piece=5)]) as server:
        status = main(
            [
                "record",
                "--prompt",
                f"remember {KEY}",
                "-o",
                str(cassette),
                "--log",
                str(log),
                "--base-url",
                server.base_url,
                "--api-key-env",
                ENV,
            ]
        )
    out = capsys.readouterr()
    assert status == 0
    assert f"turn 1: completed: 'noted: {REDACTED}'" in out.out
    for text in (out.out, out.err, cassette.read_text("utf-8"), log.read_text("utf-8")):
        assert KEY not in text
        assert KEY[6:20] not in text
    lines = [json.loads(line) for line in log.read_text("utf-8").splitlines()[1:]]
    assert chunk_text(lines) == f"noted: {REDACTED}"
    assert f"remember {REDACTED}" in log.read_text("utf-8")


# -- show ----------------------------------------------------------------------------------


def test_show_prints_and_writes_no_declared_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "leak.jsonl"
    write_session_log(log, leaky_events())
    assert KEY in log.read_text("utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert main(["show", str(log)]) == 0
    text = capsys.readouterr().out
    assert KEY not in text
    assert REDACTED in text
    page = tmp_path / "leak.html"
    assert main(["show", str(log), "--html", str(page)]) == 0
    summary = capsys.readouterr().out
    html = page.read_text("utf-8")
    assert KEY not in html
    assert KEY not in summary
    assert KEY[6:18] not in html
    assert "&lt;redacted&gt;" in html
    assert "<redacted>" not in html

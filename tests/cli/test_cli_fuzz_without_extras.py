"""``fuzz`` and the replay vectors in an install without the optional packages: a clear
line naming what to install, never a cassette called corrupt."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness_conformance.chaos import SdkMissing, sdk_client
from harness_conformance.cli import main
from harness_conformance.conformance import _replay as replay_vectors

ROOT = Path(__file__).resolve().parents[2]
ANTHROPIC = sorted(
    (ROOT / "fixtures" / "cassettes" / "loopback" / "anthropic-messages").glob("*.yaml")
)
CHAT = ROOT / "fixtures" / "cassettes" / "loopback" / "tool_call.yaml"
VECTORS = ROOT / "conformance" / "replay"


def test_fuzz_without_hypothesis_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    assert main(["fuzz", str(CHAT), "--examples", "1"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "harness-conformance fuzz: fuzz draws its examples with Hypothesis, which is not "
        'installed: pip install "harness-conformance[fuzz]"'
    )


def test_fuzz_of_a_cassette_whose_sdk_is_missing_names_the_file_and_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    assert main(["fuzz", str(ANTHROPIC[0]), "--examples", "1", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert str(ANTHROPIC[0]) in err
    assert "a cassette in the anthropic-messages format" in err
    assert 'pip install "harness-conformance[anthropic]"' in err
    assert "CASSETTE_CORRUPT" not in err


@pytest.mark.parametrize(
    ("module", "wire", "extra"),
    [("anthropic", "anthropic-messages", "anthropic"), ("google.genai", "gemini", "gemini")],
)
def test_sdk_client_names_the_extra(
    module: str, wire: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(SdkMissing) as raised:
        sdk_client(wire, "http://127.0.0.1:9/v1", None)  # type: ignore[arg-type]
    assert f'pip install "harness-conformance[{extra}]"' in str(raised.value)
    assert raised.value.wire == wire


def test_fault_vectors_whose_sdk_is_missing_are_skipped_with_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    replay_vectors._replay.cache_clear()
    try:
        results = replay_vectors.REPLAY_VECTORS.run(VECTORS)
    finally:
        replay_vectors._replay.cache_clear()
    skipped = {r.vector_id: r.skipped for r in results if r.skipped}
    failed = [r for r in results if not r.skipped]
    assert failed == []
    reason = skipped["chaos-anthropic-cut-after-tool-block"]
    assert reason.startswith("not run here: ")
    assert 'pip install "harness-conformance[anthropic]"' in reason
    assert "chaos-chat-usage-stream-cut" not in skipped

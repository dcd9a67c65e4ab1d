"""``replay`` reads and composes each cassette once: the secret scan works on the node
tree the loader composed, and a file that does not load is still scanned first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness_conformance.cli import main
from harness_conformance.parsing import _yaml

ROOT = Path(__file__).resolve().parents[2]
STREAMED = ROOT / "fixtures" / "cassettes" / "loopback" / "parallel_tool_calls.yaml"
KEY = "sk-proj-" + "Zq8vN2xR5tL9wK3mB7cF1hJ4"


def _rows(out: str) -> dict[str, str]:
    rows = {}
    for line in out.splitlines():
        cells = line.split()
        if cells and cells[0].endswith(".yaml"):
            rows[cells[0]] = line.split("  ")[-1].strip()
    return rows


def test_a_streamed_cassette_is_composed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(STREAMED, tmp_path / "a.yaml")
    calls: list[str] = []
    real_get = yaml.CSafeLoader.get_single_node

    def counting(self: Any) -> Any:
        calls.append("compose")
        return real_get(self)

    monkeypatch.setattr(yaml.CSafeLoader, "get_single_node", counting)
    assert main(["replay", "-q", str(tmp_path)]) == 0
    assert "data:" in STREAMED.read_text("utf-8")
    assert calls == ["compose"]
    assert capsys.readouterr().out.strip() == (
        "1 cassette, 0 violations, 0 invalid tool calls, 0 errors"
    )


def _split_key(text: str) -> str:
    """``text`` with a key cut across two streamed deltas of its first text event."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.lstrip().startswith('data: {"id"') and '"content":""' in line:
            first = line.replace('"content":""', f'"content":"{KEY[:10]}"', 1)
            second = line.replace('"content":""', f'"content":"{KEY[10:]}"', 1)
            return "".join([*lines[:index], first, second, *lines[index + 1 :]])
    raise AssertionError("no empty content delta to plant the key in")


def test_a_key_split_across_deltas_is_found_in_the_shared_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _split_key(STREAMED.read_text("utf-8"))
    assert KEY not in text
    (tmp_path / "split.yaml").write_text(text, "utf-8")
    assert main(["replay", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert _rows(out) == {"split.yaml": "ERROR CASSETTE_SECRET"}
    assert "split across 2 stream events" in out
    assert KEY[:10] not in out


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda text: text + "\n  - [unclosed\n", id="bad-yaml"),
        pytest.param(lambda text: "&a [*a]\n" + text, id="refused-yaml"),
        pytest.param(lambda text: text.replace("interactions:", "interactionz:", 1), id="no-list"),
    ],
)
def test_a_secret_in_a_file_that_does_not_load_is_reported_first(
    spoil: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = STREAMED.read_text("utf-8").replace(
        "interactions:", f"# api_key: {KEY}\ninteractions:", 1
    )
    (tmp_path / "leaky.yaml").write_text(spoil(text), "utf-8")
    assert main(["replay", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert _rows(out) == {"leaky.yaml": "ERROR CASSETTE_SECRET"}
    assert KEY not in out


def test_a_json_cassette_is_scanned_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = yaml.safe_load(STREAMED.read_text("utf-8"))
    document["interactions"][0]["request"]["headers"]["x-api-key"] = [KEY]
    (tmp_path / "leaky.json").write_text(json.dumps(document), "utf-8")
    assert main(["replay", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "ERROR CASSETTE_SECRET" in out
    assert KEY not in out


def test_inspect_sees_the_checked_tree_before_construction() -> None:
    seen: list[Any] = []
    assert _yaml.load_yaml("a: [1, 2]", inspect=seen.append) == {"a": [1, 2]}
    assert isinstance(seen[0], yaml.MappingNode)
    assert _yaml.load_yaml("", inspect=seen.append) is None
    assert seen[1:] == [None]
    with pytest.raises(_yaml.YamlTextError):
        _yaml.load_yaml("&a [" + "[" * 300 + "]" * 300 + "]", inspect=seen.append)
    assert len(seen) == 2

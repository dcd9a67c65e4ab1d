"""A screened load decodes each stream event once: the events the secret scan decoded are
handed to the loader, and the interactions are exactly those of an unscreened load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from _same import same

from harness_conformance.cassettes import _stream_bodies
from harness_conformance.cassettes._secrets import find_secrets
from harness_conformance.cassettes._stream_bodies import MISSING, handing, take
from harness_conformance.cassettes.foreign import _load
from harness_conformance.cassettes.foreign._load import Interaction, load_foreign_cassette
from harness_conformance.errors import CassetteError

ROOT = Path(__file__).resolve().parents[3]
FILES = sorted(
    path
    for folder in ("tests/corpora/cassettes", "tests/corpora/provider-cassettes", "fixtures")
    for path in (ROOT / folder).rglob("*.yaml")
)


def _scan(text: str, tree: Any) -> None:
    find_secrets(text, tree=tree)


def _fields(item: Interaction) -> list[Any]:
    return [getattr(item, name) for name in item.__dataclass_fields__]


@pytest.mark.slow
def test_every_recorded_file_loads_the_same_screened_or_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken: list[bool] = []

    def counting(text: str) -> Any:
        value = take(text)
        if _stream_bodies._HANDED.get() is not None:  # a screened load
            taken.append(value is not MISSING)
        return value

    monkeypatch.setattr(_load, "take", counting)
    assert len(FILES) > 150
    for path in FILES:
        failure: str | None
        try:
            plain = load_foreign_cassette(path)
        except CassetteError as exc:
            failure = str(exc)
        else:
            failure = None
        if failure is not None:
            with pytest.raises(CassetteError) as screened_error:
                load_foreign_cassette(path, screen=_scan)
            assert str(screened_error.value) == failure
            continue
        screened = load_foreign_cassette(path, screen=_scan)
        assert len(plain) == len(screened), path
        for left, right in zip(plain, screened, strict=True):
            assert all(map(same, _fields(left), _fields(right))), (path, left.index)
    # The hand-off is used: most events are not decoded twice.
    assert sum(taken) > 0.8 * len(taken) > 1000


def _stream_file(tmp_path: Path, stream: str) -> Path:
    interaction = {
        "request": {
            "method": "POST",
            "uri": "https://api.example.test/v1/chat/completions",
            "body": json.dumps({"model": "m", "messages": [], "stream": True}),
            "headers": {},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": ["text/event-stream"]},
            "body": {"string": stream},
        },
    }
    path = tmp_path / "stream.yaml"
    path.write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}), "utf-8")
    return path


def test_repeated_events_are_distinct_values(tmp_path: Path) -> None:
    event = 'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n'
    path = _stream_file(tmp_path, event * 3 + "data: [DONE]\n\n")
    (interaction,) = load_foreign_cassette(path, screen=_scan)
    first, second, third = interaction.body
    assert first == second == third
    assert len({id(first), id(second), id(third)}) == 3


def test_events_the_scan_cannot_decode_are_read_by_the_loader(tmp_path: Path) -> None:
    stream = (
        'data: {"choices": [\n\n'  # not JSON: kept as text
        "data: 12\n\n"  # JSON, but no object: the scan skips it
        "data: " + "[" * 5000 + "]" * 5000 + "\n\n"  # too deep for the scan's json.loads
        "data: [DONE]\n\n"
    )
    path = _stream_file(tmp_path, stream)
    with pytest.raises(CassetteError) as screened:
        load_foreign_cassette(path, screen=_scan)
    with pytest.raises(CassetteError) as plain:
        load_foreign_cassette(path)
    assert str(screened.value) == str(plain.value)
    shallow = _stream_file(tmp_path, stream.replace("[" * 5000 + "]" * 5000, "[[1]]"))
    (interaction,) = load_foreign_cassette(shallow, screen=_scan)
    assert interaction.body == ('{"choices": [', 12, [[1]])


def test_values_are_handed_only_inside_a_block_and_once() -> None:
    line = 'data: {"a": 1}'
    assert _stream_bodies._payload(line) == {"a": 1}
    assert take('{"a": 1}') is MISSING  # no block: nothing kept
    with handing():
        value = _stream_bodies._payload(line)
        assert take('{"a": 1}') is value
        assert take('{"a": 1}') is MISSING
        with handing():  # a nested block keeps its own
            _stream_bodies._payload(line)
        assert take('{"a": 1}') is MISSING
    assert take('{"a": 1}') is MISSING

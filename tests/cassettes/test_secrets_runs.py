"""The scanner searches its contextual patterns only inside long runs of key characters:
it finds exactly what searching the whole text with every pattern finds."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.cassettes._key_patterns import PATTERNS as _PATTERNS
from harness_conformance.cassettes._key_patterns import RUN as _RUN
from harness_conformance.cassettes._key_patterns import key_matches as _key_matches
from harness_conformance.cassettes._key_patterns import runs as _runs

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(
    path
    for folder in ("tests/corpora/cassettes", "tests/corpora/provider-cassettes", "fixtures")
    for path in (ROOT / folder).rglob("*.yaml")
)


def _by_pattern(text: str) -> list[tuple[int, int]]:
    return [run.span() for run in _RUN.finditer(text)]


def _everywhere(text: str) -> list[tuple[str, int, int]]:
    return sorted(
        (pattern.kind, match.start(), match.end())
        for pattern in _PATTERNS
        for match in pattern.regex.finditer(text)
    )


def _through_runs(text: str) -> list[tuple[str, int, int]]:
    found = _key_matches(text)
    return sorted((pattern.kind, match.start(), match.end()) for pattern, match in found)


def test_the_corpus_has_contextual_matches_to_compare() -> None:
    contextual = [p for p in _PATTERNS if p.needs_context]
    found = sum(
        1
        for path in CORPUS
        for pattern in contextual
        for _ in pattern.regex.finditer(path.read_text("utf-8", errors="replace"))
    )
    assert len(CORPUS) > 150
    assert found > 50


@pytest.mark.parametrize("path", CORPUS, ids=lambda path: path.name)
def test_runs_find_what_the_whole_text_search_finds_in_recorded_cassettes(path: Path) -> None:
    text = path.read_text("utf-8", errors="replace")
    assert _through_runs(text) == _everywhere(text)
    assert _runs(text) == _by_pattern(text)


_PIECES = st.sampled_from(
    [
        "0123456789abcdef" * 2,
        "deadBEEF" * 5,
        "QUJD" * 11,
        "=",
        "==",
        "-",
        "_",
        "/",
        "+",
        ".",
        " ",
        "\n",
        "x",
        "sk-",
        "token: ",
        "é",
    ]
)


@given(st.lists(_PIECES, max_size=30).map("".join))
def test_runs_find_what_the_whole_text_search_finds_in_any_text(text: str) -> None:
    assert _through_runs(text) == _everywhere(text)
    assert _runs(text) == _by_pattern(text)


@given(st.text(alphabet="ab-_/+=.\x00 \x7f\u00e9\u4e2d", max_size=120))
def test_runs_are_found_as_the_pattern_finds_them(text: str) -> None:
    assert _runs(text) == _by_pattern(text)
    assert _runs(text * 20) == _by_pattern(text * 20)


def test_a_padded_key_after_another_is_not_found_twice() -> None:
    first, second = "QUJD" * 11, "Wxyz" * 11
    text = f"key: {first}=={second}"
    found = _through_runs(text)
    assert found == [("a long base64 key", 5, 51)]
    assert found == _everywhere(text)

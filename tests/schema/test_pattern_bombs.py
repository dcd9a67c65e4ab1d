"""Patterns are bounded from compile to match: a pattern whose counted repeats expand
past `PATTERN_EXPANSION` items is refused with the pattern's own message before either
regex engine compiles it, from the DSL, from JSON Schema and from a replayed cassette.

Each attack runs in a child with a memory limit (`run_bounded`): compiled, the bombs
below take hundreds of megabytes to gigabytes on the ``regex`` engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _bounded import run_bounded
from _tool_cassette import tool_call_cassette

from harness_conformance import s
from harness_conformance.errors import SchemaError
from harness_conformance.schema import from_json_schema, validate_args
from harness_conformance.schema._pattern import PATTERN_EXPANSION, expansion, pattern_size_error

BOMBS = ("((a{100}){100}){100}", "(((a{9}){99}){99}){99}", "(?:x{1000}){1000}", "(a{999}|b){999}")
"""Each expands past a million items: 10**6, 8.8 * 10**6, 10**6 and about 10**6."""


def _parsed(pattern: str) -> object:
    import re._parser as sre_parse  # type: ignore[import-not-found]

    return sre_parse.parse(pattern)


@pytest.mark.parametrize("bomb", BOMBS)
def test_a_bomb_is_refused_with_its_message(bomb: str) -> None:
    error = pattern_size_error(bomb)
    assert error is not None
    assert f"more than {PATTERN_EXPANSION} items" in error


@pytest.mark.parametrize("bomb", BOMBS)
def test_the_dsl_and_the_importer_refuse_a_bomb_without_compiling_it(bomb: str) -> None:
    out = run_bounded(
        f"""
        from harness_conformance import s
        from harness_conformance.errors import SchemaError
        from harness_conformance.schema import from_json_schema
        for build in (
            lambda: s.params({{"p": s.string(pattern={bomb!r})}}),
            lambda: from_json_schema({{"type": "string", "pattern": {bomb!r}}}),
        ):
            try:
                build()
            except SchemaError as exc:
                print("refused:", repr(str(exc)))
            else:
                print("accepted")
        """,
        memory=512 * 1024 * 1024,
    )
    lines = out.splitlines()
    assert len(lines) == 2, out
    for line in lines:
        assert line.startswith("refused:"), out
        assert "too large to compile" in line, out


@pytest.mark.parametrize(
    "pattern", ["a{65535}", "^[a-z]{1,64}$", "(ab){1000}", "((a|b){10}){10}", "x{0,99999}"]
)
def test_large_but_bounded_patterns_still_work(pattern: str) -> None:
    assert pattern_size_error(pattern) is None
    spec = s.params({"p": s.string(pattern=pattern)})
    assert validate_args(spec, {"p": 5}) != []


def test_expansion_counts_repeat_bodies_times_their_bounds() -> None:
    assert expansion(_parsed("abc")) == 3
    assert expansion(_parsed("a{10}")) == 10
    assert expansion(_parsed("a{2,5}")) == 3
    assert expansion(_parsed("(a{10}){10}")) == 100
    assert expansion(_parsed("a*")) == 2
    assert expansion(_parsed("a|bc")) == 3
    assert expansion(_parsed(BOMBS[0])) > PATTERN_EXPANSION


def test_a_bomb_in_pattern_properties_or_property_names_is_refused_unread() -> None:
    for keyword, value in (
        ("patternProperties", {BOMBS[0]: {"type": "string"}}),
        ("propertyNames", {"pattern": BOMBS[0]}),
    ):
        with pytest.raises(SchemaError) as caught:
            from_json_schema({"type": "object", keyword: value})
        assert keyword in str(caught.value)


def test_replaying_a_cassette_whose_tool_schema_holds_a_bomb_stays_small(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": BOMBS[1]}}}
    cassette = tool_call_cassette(tmp_path / "bomb.json", schema, '{"q": "aaa"}')
    out = run_bounded(
        f"""
        from harness_conformance.cassettes.foreign import replay_foreign
        replay = replay_foreign({str(cassette)!r})
        print("raw:", ",".join(replay.raw_tools))
        print("calls:", replay.tool_calls)
        print("unchecked:", [call.reason for call in replay.unchecked_tool_calls])
        """,
        memory=768 * 1024 * 1024,
    )
    assert "raw: lookup" in out
    assert "calls: 1" in out
    assert "too large to compile" in out.split("unchecked:")[1]

"""Cut lists: the fixed ones, where `places` finds each kind, and what `chunkings` draws."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from harness_conformance.chaos import (
    CHUNKING_KINDS,
    as_cuts_for,
    cassette_chunkings,
    chunkings,
    cuts_every,
    no_cuts,
    places,
    split_at,
)

BODY = (
    b'event: message\r\ndata: {"type":"x","text":"h\xc3\xa9llo \xe2\x82\xac"}\r\n\r\n'
    b'data: {"tool_calls":[{"function":{"name":"add","arguments":"{\\"a\\": 1}"}}]}\n\n'
    b"data: [DONE]\n\n"
)
_START = BODY.index(b'"arguments":"') + len(b'"arguments":"')
ARGUMENTS = (_START, BODY.index(b'}"', _START) + 1)
"""The offsets of the tool arguments' JSON text in `BODY`."""


def _in_data_line(offset: int) -> bool:
    line_start = max(BODY.rfind(b"\n", 0, offset), BODY.rfind(b"\r", 0, offset)) + 1
    return offset > line_start and BODY[line_start:].startswith(b"data:")


def test_cuts_every_and_no_cuts() -> None:
    assert cuts_every(1)(0, b"abcd") == [1, 2, 3]
    assert cuts_every(3)(0, b"abcdefg") == [3, 6]
    assert cuts_every(10)(0, b"abc") == []
    assert no_cuts(0, b"abcd") == []


@pytest.mark.parametrize("size", [0, -2, True, 1.5])
def test_cuts_every_needs_a_positive_size(size: object) -> None:
    with pytest.raises(ValueError, match="at least 1 byte"):
        cuts_every(size)  # type: ignore[arg-type]


def test_as_cuts_for_reads_a_mapping() -> None:
    cuts_for = as_cuts_for({2: [1, 3]})
    assert cuts_for(2, b"abcd") == [1, 3]
    assert cuts_for(5, b"abcd") == []


def test_places_finds_each_kind() -> None:
    found = places(BODY)
    assert all(0x80 <= BODY[p] <= 0xBF for p in found["utf8"])
    assert len(found["utf8"]) == 3  # one continuation byte of é, two of €
    assert [BODY[p - 1 : p + 1] for p in found["crlf"]] == [b"\r\n"] * 3
    for p in found["data"]:
        line_start = BODY.rfind(b"\n", 0, p) + 1
        assert BODY[line_start:].startswith(b"data:")
    arguments = BODY.index(b'"arguments":') + len(b'"arguments":')
    assert arguments in found["arguments"]


@given(cuts=chunkings(BODY))
def test_every_drawn_cut_list_fits_the_body(cuts: list[int]) -> None:
    assert cuts == sorted(set(cuts))
    assert b"".join(split_at(BODY, cuts)) == BODY


KINDS: dict[str, Callable[[list[int]], bool]] = {
    "whole": lambda cuts: cuts == [],
    "bytes": lambda cuts: cuts == list(range(1, len(BODY))),
    "utf8": lambda cuts: any(0x80 <= BODY[c] <= 0xBF for c in cuts),
    "crlf": lambda cuts: any(BODY[c - 1 : c + 1] == b"\r\n" for c in cuts),
    "data": lambda cuts: any(_in_data_line(c) for c in cuts),
    "arguments": lambda cuts: any(ARGUMENTS[0] < c < ARGUMENTS[1] for c in cuts),
    "random": lambda cuts: len(cuts) > 1,
}
"""What a cut list of each kind does; beside one byte at a time, a kind shows with few
cuts (one byte at a time does everything at once)."""


@pytest.mark.parametrize("kind", CHUNKING_KINDS)
def test_chunkings_draws_every_kind_often(kind: str) -> None:
    few = len(BODY) // 4
    holds = KINDS[kind]

    def shows(cuts: list[int]) -> bool:
        return holds(cuts) if kind in ("whole", "bytes") else len(cuts) < few and holds(cuts)

    found = find(chunkings(BODY), shows, settings=settings(max_examples=300, database=None))
    assert shows(found)


def test_cassette_chunkings_draws_one_cut_list_per_body() -> None:
    bodies = {0: b"abc", 4: BODY}
    drawn = find(cassette_chunkings(bodies), lambda cuts: bool(cuts[4]))
    assert set(drawn) == {0, 4}


def test_a_one_byte_body_is_never_cut() -> None:
    assert find(chunkings(b"x"), lambda cuts: True) == []


@given(data=st.data())
def test_any_body_gets_cuts_that_fit(data: st.DataObject) -> None:
    body = data.draw(st.binary(max_size=64), label="body")
    cuts = data.draw(chunkings(body), label="cuts")
    assert b"".join(split_at(body, cuts)) == body


def test_the_package_imports_without_hypothesis() -> None:
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "import harness_conformance.chaos as chaos\n"
        "assert chaos.cuts_every(2)(0, b'abcde') == [2, 4]\n"
        "try:\n"
        "    chaos.chunkings(b'abc')\n"
        "except ImportError:\n"
        "    print('strategies need hypothesis')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "strategies need hypothesis"

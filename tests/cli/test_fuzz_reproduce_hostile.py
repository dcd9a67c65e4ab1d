"""Hostile ``fuzz --reproduce`` input: text or files too large or nested too deeply,
integers too long or out of range, offsets outside the recorded body, booleans where a
number goes. Each is one line naming the text or the file, with status 2 and no
traceback; a valid example still replays.

Inputs that could exhaust memory or the stack run in a bounded child (`run_bounded`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _bounded import run_bounded

from harness_conformance.cli import main
from harness_conformance.cli._fuzz import REPRODUCE_BYTES, REPRODUCE_DEPTH

ROOT = Path(__file__).resolve().parents[2]
PLAIN = ROOT / "fixtures" / "cassettes" / "loopback" / "plain_text.yaml"
BODY = 2938
"""The bytes of the one model call's body in `PLAIN` (13 events)."""
INLINE = "the --reproduce text"
DEEP = '"[" * 100_000 + "]" * 100_000'
"""100,000 nested arrays, as the Python expression `_bounded` takes."""
DEEP_EXAMPLE = """'{"cuts": {"0": ' + """ + DEEP + """ + '}}'"""
LONG_INTEGER = """'{"cuts": {"0": [' + "9" * 10**6 + ']}}'"""
"""An example holding an integer of a million digits, as an expression."""
DEEP_TEXT = '{"cuts": {"0": ' + "[" * 100_000 + "]" * 100_000 + "}}"
LONG_TEXT = '{"cuts": {"0": [' + "9" * 10**6 + "]}}"
"""`DEEP_EXAMPLE` and `LONG_INTEGER` as text, for a file."""
CHILD_MEMORY = 512 * 1024 * 1024
"""Enough for the command, far too little to hold what the attacks would build."""


def _run(capsys: pytest.CaptureFixture[str], example: str) -> tuple[int, str, str]:
    status = main(["fuzz", str(PLAIN), "--reproduce", example])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _refused(status: int, out: str, err: str, source: str, message: str) -> None:
    """One usage-error line naming ``source`` and saying ``message``."""
    assert (status, out) == (2, ""), err
    assert err.startswith("harness-conformance fuzz: "), err
    assert err.endswith("\n"), err
    assert err.count("\n") == 1, err
    assert source in err, err
    assert message in err, err
    assert "Traceback" not in err


def _bounded(example: str) -> tuple[int, str, str]:
    """``fuzz PLAIN --reproduce EXAMPLE`` in a child limited in memory and time;
    ``example`` is a Python expression the child evaluates (the code goes to the child
    on its command line, which is too short for the attacks themselves)."""
    code = f"""
        import contextlib, io, json
        from harness_conformance.cli import main
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["fuzz", {str(PLAIN)!r}, "--reproduce", {example}])
        print(json.dumps([status, out.getvalue(), err.getvalue()]))
    """
    status, out, err = json.loads(run_bounded(code, memory=CHILD_MEMORY))
    return status, out, err


@pytest.mark.slow
@pytest.mark.parametrize("example", [DEEP, DEEP_EXAMPLE], ids=["array", "in-an-object"])
def test_deep_nesting_inline_is_refused(example: str) -> None:
    status, out, err = _bounded(example)
    _refused(status, out, err, INLINE, f"nests arrays and objects more than {REPRODUCE_DEPTH}")


@pytest.mark.slow
def test_deep_nesting_in_a_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP_TEXT, encoding="utf-8")
    status, out, err = _bounded(repr(str(path)))
    _refused(status, out, err, str(path), "nests arrays and objects more than 64 deep")


def test_brackets_inside_strings_do_not_count_as_nesting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    example = '{"cuts": {"0": []}, "' + "[" * 1000 + '": 1}'
    _refused(*_run(capsys, example), INLINE, "(not '[[[[")


@pytest.mark.slow
def test_an_integer_of_a_million_digits_is_refused_by_size(tmp_path: Path) -> None:
    status, out, err = _bounded(LONG_INTEGER)
    _refused(status, out, err, INLINE, f"more than the {REPRODUCE_BYTES:,} an example may take")
    path = tmp_path / "long.json"
    path.write_text(LONG_TEXT, encoding="utf-8")
    status, out, err = _bounded(repr(str(path)))
    _refused(status, out, err, str(path), f"holds {len(LONG_TEXT):,} bytes, more than")


def test_an_integer_past_the_digit_limit_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    example = '{"cuts": {"0": [' + "9" * 5000 + "]}}"
    _refused(*_run(capsys, example), INLINE, "cannot be read: an integer has more than 4300")


@pytest.mark.slow
def test_a_file_of_200_megabytes_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as file:
        file.truncate(200_000_000)  # sparse: no disk, but stat gives its size
    status, out, err = _bounded(repr(str(path)))
    _refused(status, out, err, str(path), "holds 200,000,000 bytes, more than the 1,000,000")


def test_a_file_just_over_the_bound_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "padded.json"
    path.write_text('{"cuts": {}}'.ljust(REPRODUCE_BYTES + 1), encoding="utf-8")
    _refused(*_run(capsys, str(path)), str(path), f"holds {REPRODUCE_BYTES + 1:,} bytes")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("example", "message"),
    [
        ('{"cuts": {"0": [[1, 2147483647]]}}', "more than 1,000,000 cut offsets"),
        (
            '{"fault": {"interaction": 0, "kind": "keep-alive-flood", "lines": 1000000000}}',
            "'fault': a fault's lines is at most 100,000, got 1000000000",
        ),
    ],
    ids=["run-of-every-offset", "flood-of-a-billion-lines"],
)
def test_counts_that_would_exhaust_memory_are_refused(example: str, message: str) -> None:
    status, out, err = _bounded(repr(example))
    _refused(status, out, err, INLINE, message)


FITS = f"{PLAIN}: the example does not fit the cassette: "


@pytest.mark.parametrize(
    ("example", "message"),
    [
        (
            '{"cuts": {"0": [17, 5000]}}',
            f"the cuts of interaction 0: the cut at 5000 is outside its {BODY}-byte body "
            f"(cuts lie between 1 and {BODY - 1})",
        ),
        (
            '{"cuts": {"0": [40, 17]}}',
            "the cuts of interaction 0: the cut at 17 does not follow the cut at 40",
        ),
        (
            '{"fault": {"interaction": 0, "kind": "stall", "at": 99999}}',
            f"the stall fault sends 99999 bytes of interaction 0's {BODY}-byte body; "
            f"its at counts the bytes sent, 0 to {BODY}",
        ),
        (
            '{"fault": {"interaction": 0, "kind": "reset-during-body", "at": 3000}}',
            f"the reset-during-body fault sends 3000 bytes of interaction 0's {BODY}-byte",
        ),
        (
            '{"fault": {"interaction": 0, "kind": "truncated", "at": 14}}',
            "the truncated fault's at is 14, past the 13 events of interaction 0's body; "
            "its at counts the events kept, 0 to 13",
        ),
        (
            '{"fault": {"interaction": 0, "kind": "malformed-event", "at": 13}}',
            "its at counts the event it acts on, 0 to 12",
        ),
        (
            '{"fault": {"interaction": 0, "kind": "keep-alive-flood", "at": 500}}',
            "the keep-alive-flood fault's at is 500, past the 13 events",
        ),
    ],
    ids=["cut", "cut-order", "stall", "reset", "truncated", "malformed", "flood"],
)
def test_an_offset_past_the_body_is_refused(
    example: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(*_run(capsys, example), FITS, message)


@pytest.mark.parametrize(
    ("example", "message"),
    [
        ('{"cuts": {"0": [-3]}}', "'cuts': interaction 0: an offset counts the bytes before"),
        ('{"cuts": {"0": [[-5, 3]]}}', "0 to 2,147,483,647, got -5"),
        ('{"cuts": {"0": [' + "9" * 30 + "]}}", "got an integer of 30 digits"),
        ('{"fault": {"interaction": 0, "kind": "stall", "at": -1}}', "at counts from 0, got -1"),
        (
            '{"fault": {"interaction": 0, "kind": "status", "status": 429, "retry_after": -5}}',
            "'fault': a fault's retry_after counts from 0, got -5",
        ),
        (
            '{"fault": {"interaction": ' + "9" * 40 + ', "kind": "stall"}}',
            "a fault's interaction is at most 2,147,483,647, got an integer of 40 digits",
        ),
        ('{"cuts": {"00": [3]}}', "'cuts': the key '00' is no interaction index"),
        ('{"cuts": {"\\u0661": [3]}}', "is no interaction index"),
    ],
    ids=["cut", "run", "cut-too-long", "at", "retry-after", "interaction", "key", "digit"],
)
def test_a_negative_or_absurd_number_is_refused(
    example: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(*_run(capsys, example), INLINE, message)


@pytest.mark.parametrize(
    ("example", "message"),
    [
        ('{"cuts": {"0": [true]}}', "interaction 0 takes an array of byte offsets"),
        ('{"cuts": {"0": [[1, false]]}}', "interaction 0 takes an array of byte offsets"),
        (
            '{"fault": {"interaction": 0, "kind": "stall", "at": true}}',
            "the fault's field 'at' must be an integer, not a boolean",
        ),
        (
            '{"fault": {"interaction": false, "kind": "stall"}}',
            "the fault's field 'interaction' must be an integer, not a boolean",
        ),
    ],
    ids=["cut", "run-end", "at", "interaction"],
)
def test_a_boolean_where_a_number_goes_is_refused(
    example: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(*_run(capsys, example), INLINE, message)


def test_a_long_value_that_is_no_file_is_shown_shortened(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = _run(capsys, "nowhere/" * 5000)
    _refused(status, out, err, "--reproduce nowhere/nowhere/", "...: give the JSON object")
    assert len(err) < 200


def test_a_file_that_is_not_utf8_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"cuts": {"0": [1]}, "\xff": 1}')
    _refused(*_run(capsys, str(path)), f"--reproduce {path}", "cannot read the file")


@pytest.mark.parametrize(
    ("example", "status"),
    [
        ('{"cuts": {"0": [[1, 5], 17, 2937]}}', 0),
        ('{"fault": {"interaction": 0, "kind": "stall", "at": 2938}}', 0),
        ('{"fault": {"interaction": 0, "kind": "truncated", "at": 13}}', 0),
        ('{"fault": {"interaction": 0, "kind": "keep-alive-flood", "at": 12, "lines": 3}}', 0),
    ],
    ids=["cuts", "stall-at-the-end", "truncated-keeping-all", "flood-after-the-last"],
)
def test_a_valid_example_still_replays(
    example: str, status: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    got, out, err = _run(capsys, example)
    assert (got, err) == (status, "")
    assert out.splitlines()[0].startswith(f"{PLAIN}: ")
    path = tmp_path / "example.json"
    path.write_text(example, encoding="utf-8")
    assert _run(capsys, str(path))[:3:2] == (status, "")

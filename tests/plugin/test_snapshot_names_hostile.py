"""Snapshot file names from hostile test ids: a test id that would put a key (a
key-shaped token, or a declared secret of the extension) into a snapshot's file name
fails its assertion with ``CASSETTE_SECRET`` and nothing is written; the refusal shows
the name with the key replaced, never the key (pytest's own report still prints the id
it was given)."""

from __future__ import annotations

import pytest

from harness_conformance.cassettes._names import refuse_secret_name
from harness_conformance.errors import CassetteError

KEY = "sk-proj-" + "Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1Ff0Dd"
DECLARED = "hunter2" * 3

TEST_FILE = f"""
import pytest

from harness_conformance import tool
from harness_conformance.snapshots import EventLogSnapshot, ValidationReportSnapshot


class Declared(ValidationReportSnapshot):
    secrets = ({DECLARED!r},)


@tool
def lookup(city: str) -> str:
    '''Look a city up.'''
    return city


@pytest.mark.parametrize("key", [{KEY!r}], ids=lambda key: f"via {{key}}")
def test_key_in_id(snapshot, key):
    assert snapshot(extension_class=ValidationReportSnapshot) == lookup


@pytest.mark.parametrize("key", [{KEY!r}])
def test_key_in_event_log_name(snapshot, key):
    assert snapshot(extension_class=EventLogSnapshot) == []


@pytest.mark.parametrize("word", [{DECLARED!r}])
def test_declared(snapshot, word):
    assert snapshot(extension_class=Declared) == lookup


@pytest.mark.parametrize("word", ["harmless"])
def test_harmless(snapshot, word):
    assert snapshot(extension_class=Declared) == lookup
"""


def test_a_key_in_a_snapshot_name_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_names=TEST_FILE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--snapshot-update", "-rf")
    result.assert_outcomes(passed=1, failed=3)
    written = sorted(path.name for path in pytester.path.rglob("__snapshots__/**/*.*"))
    assert written == ["test_harmless[harmless].validation.txt"]
    # The refusal itself, without the test id pytest prints before it on a summary line.
    refusals = [
        line[line.index("refusing to write or read") :]
        for line in result.outlines
        if "refusing to write or read" in line
    ]
    assert len(refusals) >= 3
    assert not [line for line in refusals if KEY in line or DECLARED in line]
    expected = [
        "refusing to write or read the snapshot 'test_key_in_id[via redacted]': the test id "
        "puts a key into its file name (an OpenAI-style API key (sk-...), 40 characters, at "
        "line 1, column 20). Nothing was written.",
        "the snapshot 'test_key_in_event_log_name[redacted]'",
        "the snapshot 'test_declared[redacted]': the test id puts a key into its file name "
        "(a live API key value, 21 characters",
    ]
    for phrase in expected:
        assert any(phrase in line for line in refusals), (phrase, refusals)


def test_the_refusal_carries_the_secret_code() -> None:
    with pytest.raises(CassetteError) as raised:
        refuse_secret_name(f"test_x[{KEY}]", what="snapshot")
    assert raised.value.code == "CASSETTE_SECRET"
    assert KEY not in str(raised.value)
    refuse_secret_name("test_x[harmless]", what="snapshot")  # nothing to refuse

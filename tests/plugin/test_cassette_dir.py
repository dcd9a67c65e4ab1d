"""``--hc-cassette-dir`` and the ``hc_cassette_dir`` ini key: where cassettes are
written and read (relative paths from the rootdir; the option wins over the ini)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _plugin_project import (
    RECORD,
    add_script,
    cassette_files,
    recording,
    replaying,
    session_test,
)

CASSETTE = Path("test_agent", "test_session.yaml")


@pytest.mark.slow
def test_the_option_moves_where_cassettes_are_written_and_read(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test())
    with recording(pytester, monkeypatch, add_script()):
        pytester.runpytest(RECORD, "--hc-cassette-dir=recorded/here").assert_outcomes(passed=1)
    assert cassette_files(pytester.path) == [pytester.path / "recorded" / "here" / CASSETTE]
    replaying(monkeypatch)
    pytester.runpytest("--hc-cassette-dir=recorded/here").assert_outcomes(passed=1)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cassette */fixtures/cassettes/test_agent/test_session.yaml*"])


def test_the_ini_key_moves_them_and_the_option_wins(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test())
    with recording(pytester, monkeypatch, add_script(), hc_cassette_dir="from_ini"):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    assert cassette_files(pytester.path) == [pytester.path / "from_ini" / CASSETTE]
    with recording(pytester, monkeypatch, add_script(), hc_cassette_dir="from_ini"):
        pytester.runpytest(RECORD, "--hc-cassette-dir=from_cli").assert_outcomes(passed=1)
    assert cassette_files(pytester.path) == [
        pytester.path / "from_cli" / CASSETTE,
        pytester.path / "from_ini" / CASSETTE,
    ]


def test_an_absolute_directory_is_used_as_given(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytester.makepyfile(test_agent=session_test())
    outside = tmp_path / "elsewhere"
    with recording(pytester, monkeypatch, add_script()):
        pytester.runpytest(RECORD, f"--hc-cassette-dir={outside}").assert_outcomes(passed=1)
    assert cassette_files(pytester.path) == []
    assert cassette_files(outside) == [outside / CASSETTE]

"""The ``validation_report`` fixture and its syrupy snapshot."""

from __future__ import annotations

import pytest
from _plugin_project import rewrite_module

from harness_conformance.snapshots._validation_report import REPORT_FORMAT

TEST_FILE = """
from harness_conformance import s, tool
from harness_conformance.snapshots import ValidationReportSnapshot


@tool
def rename(path: str, new_name: str, overwrite: bool = False) -> str:
    '''Rename a file.'''
    return new_name


NOTE = s.params({"text": s.string(required=True, max_length=LIMIT)})


def test_tool_report(snapshot, validation_report):
    assert snapshot(extension_class=ValidationReportSnapshot) == validation_report(rename)


def test_spec_report(snapshot, validation_report):
    report = validation_report(NOTE, name="note")
    assert report.tool == "note"
    assert snapshot(extension_class=ValidationReportSnapshot) == report
"""


def test_update_then_compare_then_detect_a_changed_message(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_reports=TEST_FILE.replace("LIMIT", "64"))
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=2)
    written = sorted(pytester.path.rglob("*.validation.txt"))
    assert [path.name.split(".")[0] for path in written] == ["test_spec_report", "test_tool_report"]
    spec_text, tool_text = (path.read_text(encoding="utf-8") for path in written)
    header = f"# harness-conformance validation report, format {REPORT_FORMAT}"
    assert tool_text.splitlines()[:2] == [header, "tool: rename"]
    assert "kind: missing-required\npath: path\n" in tool_text
    assert 'error: {"name":"ToolArgsError","code":"INVALID_ARGS"}' in tool_text
    assert '  "text" must be at most 64 characters' in spec_text

    pytester.runpytest().assert_outcomes(passed=2)

    rewrite_module(pytester, test_reports=TEST_FILE.replace("LIMIT", "32"))
    # -vv shows the whole diff, which pytest shortens outside CI.
    result = pytester.runpytest("-vv")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_spec_report*", "*at most 32 characters*"])


def test_the_fixture_works_without_a_snapshot(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from harness_conformance import s


        def test_report(validation_report):
            spec = s.params({"n": s.integer(required=True, minimum=1)})
            report = validation_report(spec)
            kinds = [entry.kind for entry in report.entries]
            assert "out-of-range" in kinds
            assert all(entry.error == {"name": "ToolArgsError", "code": "INVALID_ARGS"}
                       for entry in report.entries)
            assert report.render().startswith("# harness-conformance validation report")
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)

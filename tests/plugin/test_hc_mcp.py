"""The ``hc_mcp`` marker and fixture: the same check as the ``mcp`` command inside a
test, with the same verdicts, Hypothesis's example database remembering what shrinking
found, and the server's process group stopped when the test ends."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("mcp")

from _mcp_support import faulty, gone

pytestmark = pytest.mark.slow

SUITE = """
import json
import pytest

SERVER = {server!r}


@pytest.mark.hc_mcp(command=SERVER, call_timeout=5)
def test_counts(hc_mcp):
    assert [tool.name for tool in hc_mcp.tools] == ["checked", "lenient"]
    report = hc_mcp.check(examples=4)
    with open("report.json", "w") as out:
        json.dump(report.as_json(), out)


@pytest.mark.hc_mcp(command=SERVER)
def test_conforms(hc_mcp):
    hc_mcp.assert_conforms(examples=4)


def test_without_a_server(hc_mcp):
    pass
"""


def test_the_fixture_gets_the_commands_verdicts(pytester: pytest.Pytester) -> None:
    child = pytester.path / "child.pid"
    server = list(faulty("--only", "checked", "--only", "lenient", "--child", str(child)))
    pytester.makepyfile(test_server=SUITE.format(server=server))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*the MCP server failed the check:*",
            "*FAIL lenient: accepted (corrupt arguments, missing-required at city)*",
        ]
    )
    result.stdout.fnmatch_lines(["*hc_mcp needs its server: @pytest.mark.hc_mcp(command=*"])
    fixture = json.loads((pytester.path / "report.json").read_text())
    command = subprocess.run(
        [
            *(sys.executable, "-m", "harness_conformance", "mcp", "--examples", "4"),
            *("--json", str(pytester.path / "cli.json"), "--", *server),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert command.returncode == 1, command.stdout + command.stderr
    cli = json.loads((pytester.path / "cli.json").read_text())
    assert [(t["name"], t["counts"], t["kinds"]) for t in fixture["tools"]] == [
        (t["name"], t["counts"], t["kinds"]) for t in cli["tools"]
    ]
    assert fixture["tools"][1]["findings"] == cli["tools"][1]["findings"]
    assert gone(int(child.read_text()))


def test_the_example_database_keeps_a_shrunk_failure(pytester: pytest.Pytester) -> None:
    server = list(faulty("--only", "lenient"))
    pytester.makeconftest(
        """
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

settings.register_profile("here", database=DirectoryBasedExampleDatabase("examples"))
settings.load_profile("here")
"""
    )
    pytester.makepyfile(
        test_db=f"""
import json
import pytest


@pytest.mark.hc_mcp(command={server!r})
def test_shrinks(hc_mcp):
    report = hc_mcp.check(examples=10)
    with open("shrink_calls", "a") as out:
        found = [report.tools[0].shrink_calls, report.findings()[0].arguments]
        out.write(json.dumps(found) + "\\n")
"""
    )
    examples = pytester.path / "examples"
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)
    stored = sorted(path.name for path in examples.rglob("*") if path.is_file())
    assert stored  # the shrunk failure, under the key of server, tool, call and verdict
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)
    runs = [json.loads(line) for line in (pytester.path / "shrink_calls").read_text().splitlines()]
    assert [arguments for _, arguments in runs] == [{}, {}]
    # the second search starts from the stored example, already as small as it gets
    assert runs[1][0] <= 2

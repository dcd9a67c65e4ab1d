"""The suite's own configuration on a small project: a run stopped by ``-x`` under xdist
names the failing test and exits 1, with syrupy snapshots in the run and every warning an
error, as ``pyproject.toml`` and ``tests/conftest.py`` set them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

SNAPSHOTS = """
import pytest

@pytest.mark.parametrize("n", range(8))
def test_snapshot(snapshot, n):
    assert {"n": n} == snapshot
"""

FAILING = """
def test_fails_on_purpose():
    assert 1 == 2, "deliberate"
"""


def configure(pytester: pytest.Pytester, *, snapshots: bool = True, hooks: str = "") -> None:
    """The suite's ini options and conftest (plus ``hooks``); with ``snapshots``, the
    snapshot and failing test files, their snapshots written."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ini = options["tool"]["pytest"]["ini_options"]
    lines = "\n".join(f"    {item!r}," for item in ini["filterwarnings"])
    paths = ", ".join(repr(str(ROOT / path)) for path in ini["pythonpath"])
    pytester.makepyprojecttoml(
        f"[tool.pytest.ini_options]\nxfail_strict = true\npythonpath = [{paths}]\n"
        f"filterwarnings = [\n{lines}\n]\n"
    )
    if snapshots:
        pytester.makepyfile(test_a_snapshots=SNAPSHOTS, test_b_failing=FAILING)
        # Written in this process before the suite's conftest is there, which would load
        # its Hypothesis profile here too.
        update = pytester.runpytest_inprocess(
            "--snapshot-update", "-p", "no:cacheprovider", "test_a_snapshots.py"
        )
        update.assert_outcomes(passed=8)
    pytester.makeconftest((ROOT / "tests" / "conftest.py").read_text(encoding="utf-8") + hooks)


def test_exitfirst_under_xdist_names_the_failure_and_exits_1(pytester: pytest.Pytester) -> None:
    configure(pytester)
    result = pytester.runpytest_subprocess("-x", "-n", "2", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["FAILED test_b_failing.py::test_fails_on_purpose*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_ctrl_c_like_interruption_keeps_status_2(pytester: pytest.Pytester) -> None:
    configure(pytester, snapshots=False)
    pytester.makepyfile(test_c_interrupt="def test_interrupt():\n    raise KeyboardInterrupt\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "test_c_interrupt.py")
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_syrupy_notes_on_incomplete_unused_detection_stay_warnings(
    pytester: pytest.Pytester,
) -> None:
    utils = pytest.importorskip("syrupy.utils")
    notes = ["warn_incomplete_worker_reports", "warn_selected_collected_mismatch"]
    if not all(hasattr(utils, name) for name in notes):
        pytest.skip("this syrupy release has no incomplete-detection warnings")
    configure(
        pytester,
        hooks="\n\ndef pytest_sessionfinish(session):\n"
        "    from syrupy.utils import warn_incomplete_worker_reports as incomplete\n"
        "    from syrupy.utils import warn_selected_collected_mismatch as mismatch\n"
        "    incomplete(received=1, expected=2)\n"
        "    mismatch(['test_a_snapshots.py::test_snapshot[0]'], set())\n",
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "test_a_snapshots.py")
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*unused snapshot detection skipped*"])

"""Under ``--hc-block-network`` the Python child processes of a test are guarded too: a
child (or its child) that reaches for a host outside loopback is refused, and the test
fails with ``NETWORK_BLOCKED`` naming the child, even when the child swallowed the error
or the test failed on the child's exit status. Loopback stays open to children, the
test's own ``PYTHONPATH`` and ``sitecustomize`` still apply, and a child whose Python
cannot import harness_conformance is a warning. Blocked attempts target ``.invalid``
names and TEST-NET (192.0.2.1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness_conformance.errors import CassetteError
from harness_conformance.offline import ChildUnguardedWarning, child_guard
from harness_conformance.offline._child_guard import BOOT_FOLDER, CHILD_GUARD_ENV

CONNECT = "import socket; socket.create_connection(('example.invalid', 80), timeout=1)"
SWALLOW = f"""
try:
    {CONNECT}
except Exception as exc:
    print(type(exc).__name__, getattr(exc, "code", ""))
"""


@pytest.fixture(autouse=True)
def _not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the option turns the guard on in the runs these tests start."""
    monkeypatch.delenv("CI", raising=False)


def _python(code: str, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, **options
    )


def test_a_child_that_connects_is_refused_and_named() -> None:
    with pytest.raises(CassetteError) as raised, child_guard("for this test"):
        child = _python(SWALLOW)
    assert child.stdout.split() == ["CassetteError", "NETWORK_BLOCKED"]
    assert raised.value.code == "NETWORK_BLOCKED"
    message = str(raised.value)
    assert message.startswith("a child process of the test (pid ")
    assert f"{sys.executable} -c" in message
    assert "connecting to example.invalid:80 was refused because only 127.0.0.1, ::1, " in message
    assert message.endswith("for this test (in a child process of the test)")


def test_the_refusal_replaces_the_failure_it_caused() -> None:
    with pytest.raises(CassetteError) as raised, child_guard("for this test"):
        subprocess.run([sys.executable, "-c", CONNECT], check=True, capture_output=True)
    assert raised.value.code == "NETWORK_BLOCKED"
    assert isinstance(raised.value.__context__, subprocess.CalledProcessError)


@pytest.mark.slow
def test_grandchildren_are_guarded() -> None:
    code = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {SWALLOW!r}])"
    with pytest.raises(CassetteError, match=r"refused.*\(1 more refused"), child_guard("x"):
        _python(f"{code}; {code}")


def test_loopback_stays_open_to_children() -> None:
    code = (
        "import socket\n"
        "with socket.create_server(('127.0.0.1', 0)) as server:\n"
        "    socket.create_connection(server.getsockname(), timeout=5).close()\n"
        "print('ok')"
    )
    with child_guard("x"):
        assert _python(code).stdout == "ok\n"


def test_the_environment_is_restored_and_the_tests_own_path_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.delenv(CHILD_GUARD_ENV, raising=False)
    (tmp_path / "sitecustomize.py").write_text("import os\nos.environ['SHADOWED'] = 'ran'\n")
    show = f"import os, sys; print(os.environ.get('SHADOWED'), sys.path.count({str(tmp_path)!r}))"
    with child_guard("x"):
        assert os.environ["PYTHONPATH"] == os.pathsep.join([BOOT_FOLDER, str(tmp_path)])
        assert _python(show).stdout.split() == ["ran", "1"]
        os.environ["PYTHONPATH"] += os.pathsep + "added"  # the block changes it itself
    assert os.environ["PYTHONPATH"] == os.pathsep.join([str(tmp_path), "added"])
    assert CHILD_GUARD_ENV not in os.environ


def test_an_unset_path_is_unset_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTHONPATH", raising=False)
    with child_guard("x"):
        assert os.environ["PYTHONPATH"] == BOOT_FOLDER
    assert "PYTHONPATH" not in os.environ


def _guarded_child(code: str, path: str) -> subprocess.CompletedProcess[str]:
    """``code`` run under `child_guard` with ``path`` as its ``PYTHONPATH``."""
    with child_guard("x"):
        return _python(code, env=dict(os.environ, PYTHONPATH=path))


def test_a_child_that_cannot_import_the_library_is_a_warning(tmp_path: Path) -> None:
    fake = tmp_path / "harness_conformance"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('another environment')\n")
    with pytest.warns(ChildUnguardedWarning, match=r"ran without the offline guard.*another"):
        ran = _guarded_child("print('ran')", os.pathsep.join([BOOT_FOLDER, str(tmp_path)]))
    assert ran.stdout == "ran\n"


PLUGIN_TESTS = f"""
import os
import subprocess
import sys

CONNECT = {CONNECT!r}


def test_child():
    subprocess.run([sys.executable, "-c", CONNECT], capture_output=True)


def test_child_in_a_fixture(child_fixture):
    pass


def test_no_child_no_failure():
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0].endswith("_child_boot")
"""

CONFTEST = f"""
import subprocess
import sys

import pytest

CONNECT = {CONNECT!r}


@pytest.fixture
def child_fixture():
    yield
    subprocess.run([sys.executable, "-c", CONNECT], capture_output=True)
"""


@pytest.mark.slow
def test_the_option_fails_the_test_whose_child_connects(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_children=PLUGIN_TESTS)
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess(
        "-p", "harness_conformance", "-p", "no:cacheprovider", "-rfE", "--hc-block-network"
    )
    result.assert_outcomes(passed=2, failed=1, errors=1)
    result.stdout.fnmatch_lines_random(
        [
            "E *CassetteError: a child process of the test (pid *) tried to reach the network: "
            "network blocked: connecting to example.invalid:80 was refused*",
            "E *CassetteError NETWORK_BLOCKED",
            "FAILED test_children.py::test_child - *CassetteError NETWO*",
            "ERROR test_children.py::test_child_in_a_fixture - *Cassett*",
        ]
    )


@pytest.mark.slow
def test_without_the_option_children_are_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_free="""
import os, subprocess, sys

def test_child_environment():
    code = "import os; print(os.environ.get('HARNESS_CONFORMANCE_CHILD_GUARD'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout == "None\\n"
    assert "_child_boot" not in os.environ.get("PYTHONPATH", "")
"""
    )
    result = pytester.runpytest_subprocess("-p", "harness_conformance", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)

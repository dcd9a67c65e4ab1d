"""``-p harness_conformance`` alone runs async and snapshot tests with autoload disabled."""

from __future__ import annotations

import pytest

PLUGIN = ("-p", "harness_conformance", "-p", "no:cacheprovider", "--strict-markers")

ASYNC_AND_SNAPSHOT = """
import pytest

@pytest.mark.anyio
async def test_async(anyio_backend):
    assert anyio_backend == "asyncio"

def test_snapshot(snapshot):
    assert {"answer": 42} == snapshot

@pytest.fixture
def anyio_backend():
    return "asyncio"
"""


@pytest.fixture
def no_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.mark.slow
@pytest.mark.usefixtures("no_autoload")
def test_async_and_snapshot_tests_run_with_the_plugin_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(ASYNC_AND_SNAPSHOT)
    pytester.runpytest_subprocess(*PLUGIN, "--snapshot-update").assert_outcomes(passed=2)
    assert list(pytester.path.glob("__snapshots__/*.ambr"))
    # The snapshot written by the first run matches on the next.
    pytester.runpytest_subprocess(*PLUGIN).assert_outcomes(passed=2)


@pytest.mark.usefixtures("no_autoload")
def test_a_blocked_companion_stays_out(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_no_snapshot(request):
            assert not request.config.pluginmanager.has_plugin("syrupy")
            assert request.config.pluginmanager.has_plugin("anyio")
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:syrupy")
    result.assert_outcomes(passed=1)


@pytest.mark.usefixtures("no_autoload")
def test_companions_given_explicitly_load_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(ASYNC_AND_SNAPSHOT)
    result = pytester.runpytest_subprocess(
        "-p", "anyio", "-p", "syrupy", *PLUGIN, "-p", "anyio", "--snapshot-update"
    )
    result.assert_outcomes(passed=2)


@pytest.mark.slow
def test_with_autoload_the_companions_load_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        ASYNC_AND_SNAPSHOT
        + """
def test_registered_once(request):
    import anyio.pytest_plugin
    import syrupy

    manager = request.config.pluginmanager
    assert manager.get_plugin("anyio") is anyio.pytest_plugin
    assert manager.get_plugin("syrupy") is syrupy
    names = [name for name, plugin in manager.list_name_plugin() if plugin is syrupy]
    assert names == ["syrupy"]
"""
    )
    result = pytester.runpytest_subprocess(*PLUGIN, "--snapshot-update")
    result.assert_outcomes(passed=3)

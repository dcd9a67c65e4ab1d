"""The offline mode: the network closed for the whole run, not only inside tests.

Under ``CI`` or ``--hc-block-network`` (`offline_enabled` says which wins) one guard,
`OfflineRun.guard`, is put in force as early as the plugin can act: while the first
conftest files load, so that an import there is covered, and through collection,
every test, the end of the session and the exit of the process. Inside a test phase
the phase's own guard (`harness_conformance.plugin._network`) reports what it
refuses; outside one, this module does:

- a refusal while a collector collects (a module imported at collection, a library
  that fetches something when imported) fails that collector, named on pytest's
  ``ERROR collecting`` line;
- a refusal anywhere else in the session (loading conftest files, session start or
  finish, between tests) is listed in the terminal summary under "harness-conformance:
  network refused outside a test", and a run that would have passed exits with
  status 1;
- a refusal once the session is over (a library's exit handler exporting traces) is
  written to standard error as it happens, when the guard stays until the process
  exits. It does in the process pytest was started in and in pytest-xdist workers; a
  pytest run inside another one (``pytester``) removes its guard when it ends.

A host under ``hc_ignore_hosts`` is refused quietly: the library sees the refusal and
nothing fails. The call phase of a test that records a cassette opens the guard
(`OfflineRun.recording`), since recording is what it is for.
"""

from __future__ import annotations

import atexit
import sys
from collections.abc import Generator, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

import pytest

from ._settings import ignored_hosts, offline_enabled

if TYPE_CHECKING:
    from ..errors import CassetteError
    from ..offline import NetworkGuard

__all__ = ["OFFLINE_KEY", "OfflineRun", "start", "stop"]

OFFLINE_KEY = pytest.StashKey["OfflineRun"]()
"""Where a run's offline mode is kept, on its ``pytest.Config``."""

PLUGIN_NAME = "harness-conformance-offline"

SUMMARY = "harness-conformance: network refused outside a test"


def _when(where: str) -> str:
    return (
        f"while {where}, outside any test, with the network closed for the whole run "
        "(CI is set, or --hc-block-network or the hc_block_network ini key is on)"
    )


class OfflineRun:
    """The process-wide guard of one pytest run and what it refused outside tests."""

    def __init__(self, config: pytest.Config, until_exit: bool) -> None:
        from ..offline import LOOPBACK_HOSTS, NetworkGuard

        self.until_exit = until_exit
        """Whether the guard stays in force until the process exits."""
        self.refusals: list[tuple[str, CassetteError]] = []
        """``(where, error)`` of each refusal outside a test phase, oldest first."""
        self._where = "loading the conftest files"
        self._in_test = 0
        self._after = False
        self.guard: NetworkGuard = NetworkGuard(
            LOOPBACK_HOSTS,
            _when(self._where),
            on_block=self._refused,
            quiet_hosts=ignored_hosts(config),
            model_hosts=(),
            rank=2,
        )

    def at(self, where: str) -> None:
        """Say what the run is doing, for the refusals that follow."""
        self._where = where
        self.guard.reason = _when(where)

    @contextmanager
    def in_test(self) -> Iterator[None]:
        """A test phase: its own guard reports what is refused inside it."""
        self._in_test += 1
        try:
            yield
        finally:
            self._in_test -= 1

    def recording(self) -> AbstractContextManager[None]:
        """The guard lifted for the call of a test that records a cassette."""
        return self.guard.opened()

    def after_session(self) -> None:
        """From now on refusals are written to standard error as they happen."""
        self._after = True
        self.at("the process exits, after the test session")

    def _refused(self, error: CassetteError) -> None:
        if self._in_test:
            return
        if self._after:
            stream = sys.__stderr__ or sys.stderr
            print(f"harness-conformance: CassetteError NETWORK_BLOCKED: {error}", file=stream)
            return
        self.refusals.append((self._where, error))

    def since(self, mark: int) -> list[tuple[str, CassetteError]]:
        """The refusals after the first ``mark`` ones."""
        return self.refusals[mark:]


class OfflineHooks:
    """The hooks that follow the run through its phases outside tests."""

    def __init__(self, run: OfflineRun) -> None:
        self.run = run

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        mark = len(self.run.refusals)
        self.run.at(f"collecting {collector.nodeid or collector.name}")
        report = yield
        refused = self.run.since(mark)
        del self.run.refusals[mark:]
        self.run.at("running the session")
        if refused and report.outcome != "failed":
            report.outcome = "failed"
            report.longrepr = "\n".join(
                f"harness_conformance.CassetteError NETWORK_BLOCKED: {error}"
                for _where, error in refused
            )
            report.result = []
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        with self.run.in_test():
            return (yield)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.run.at("finishing the session")
        if self.run.refusals and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.run.refusals:
            return
        terminalreporter.section(SUMMARY, red=True)
        for _where, error in self.run.refusals:
            terminalreporter.line(f"CassetteError NETWORK_BLOCKED: {error}")


def _until_exit(config: pytest.Config) -> bool:
    """Whether this run owns its process: started from the command line, or a
    pytest-xdist worker (a run inside another one, as ``pytester`` makes, is not)."""
    if hasattr(config, "workerinput"):
        return True
    return tuple(sys.argv[1:]) == tuple(config.invocation_params.args)


def start(config: pytest.Config) -> OfflineRun | None:
    """Put the offline mode in force for ``config``'s run when it is asked for (once)."""
    from ..offline import activate, deactivate

    if OFFLINE_KEY in config.stash:
        return config.stash[OFFLINE_KEY]
    if not offline_enabled(config):
        return None
    run = OfflineRun(config, _until_exit(config))
    config.stash[OFFLINE_KEY] = run
    activate(run.guard)
    if run.until_exit:
        # Registered now, so it runs after the exit handlers libraries register later.
        atexit.register(deactivate, run.guard)
    config.pluginmanager.register(OfflineHooks(run), PLUGIN_NAME)
    return run


def stop(config: pytest.Config) -> None:
    """End the run's offline mode: the guard stays for the process's exit when the run
    owns the process, else it is removed."""
    from ..offline import deactivate

    run = config.stash.get(OFFLINE_KEY, None)
    if run is None:
        return
    if run.until_exit:
        run.after_session()
    else:
        deactivate(run.guard)

"""Hypothesis settings profiles for the test suite, and pytester for the plugin tests.

``ci`` is derandomized so a run is reproducible; ``dev`` draws more examples. The
``HYPOTHESIS_PROFILE`` environment variable picks a profile explicitly; otherwise a
set ``CI`` variable selects ``ci`` and anything else ``dev``.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run stopped by ``-x``/``--maxfail`` exits 1, as it does without xdist.

    pytest-xdist ends such a run by raising its ``Interrupted`` (a ``KeyboardInterrupt``)
    on the controller, which pytest reports as status 2, the status of a user's Ctrl-C.
    When the failures that reached ``--maxfail`` are what stopped the run, the status is
    the one of failed tests.
    """
    maxfail = session.config.option.maxfail or 0
    if exitstatus == pytest.ExitCode.INTERRUPTED and 0 < maxfail <= session.testsfailed:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

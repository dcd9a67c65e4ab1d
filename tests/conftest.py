"""Hypothesis settings profiles for the test suite, and pytester for the plugin tests.

Every run uses ``ci`` unless told otherwise: derandomized, so a run is reproducible and
checks the same examples on every machine. It reports a failure as the shrunk example,
without the explain phase, which runs a failing test again hundreds of times to mark
the parts that do not matter (the plugin tests fail their projects' tests on purpose,
and there it would be most of their time). ``dev`` explains failures and draws three times as
many examples; ``pytest --hypothesis-profile=dev`` (or ``HYPOTHESIS_PROFILE=dev``)
selects it.

Tests marked ``slow`` (servers started end to end, whole pytest runs in subprocesses,
and any test that takes a second or more of the README's test command) are skipped
unless ``--run-slow`` is given: ``tox -e slow`` runs them, after the README's test
command in CI.
"""

import os
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from _preload import preload
from hypothesis import HealthCheck, Phase, settings

pytest_plugins = ["pytester"]

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    phases=[phase for phase in Phase if phase is not Phase.explain],
)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or "ci")


SLOW_REASON = (
    "slow: runs under --run-slow; `tox -e slow`, which CI runs after the README's test "
    "command, runs every slow test"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run the tests marked slow (end-to-end runs of servers and of pytest "
        "itself in subprocesses); `tox -e slow` runs only them",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: an end-to-end test that starts servers or whole pytest runs in subprocesses; "
        "skipped unless --run-slow",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests are skipped, with the reason naming how to run them, unless
    ``--run-slow`` is given."""
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason=SLOW_REASON)
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


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


DEPENDENCIES = (
    "openai",
    "anthropic",
    "google-genai",
    "httpx2",
    "vcrpy",
    "syrupy",
    "hypothesis",
    "pytest",
    "pytest-xdist",
    "jsonschema",
)
"""The releases the suite runs against, named in the header of every run, so a failure
caused by a new release shows which one."""


def pytest_report_header() -> str:
    found = []
    for name in DEPENDENCIES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return "dependencies: " + ", ".join(found)


@pytest.fixture(scope="session", autouse=True)
def _children_share_bytecode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The processes the suite starts (pytester subprocess runs, their xdist workers,
    the command line) share one bytecode cache for the run.

    Each of them imports the package, pytest's plugins and Hypothesis, and pytest
    rewrites the asserts of every plugin distribution it loads (Hypothesis included).
    Without a cache, as under ``PYTHONDONTWRITEBYTECODE``, every child compiles and
    rewrites all of it again. The cache is a ``PYTHONPYCACHEPREFIX`` tree in the run's
    temporary directory, shared by the xdist workers, so nothing is written beside the
    sources and it goes with pytest's temporary directories. This process itself keeps
    the interpreter's settings.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPYCACHEPREFIX", str(shared / "pycache"))
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        yield


@pytest.fixture(scope="session", autouse=True)
def _imported_once() -> None:
    """Each test process imports the package and its projects' companions before its
    first test (see `preload`), so pytester's in-process runs never import them again."""
    preload()


@pytest.fixture
def pytester(
    pytester: pytest.Pytester, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> pytest.Pytester:
    """pytester, whose projects' child processes share this run's Hypothesis storage.

    Hypothesis keeps its Unicode tables (seconds of work to build) in the storage
    directory, by default ``.hypothesis`` in the working directory, which for a child is
    the project's fresh temporary folder. In-process runs already share this process's
    storage; the children get the same directory, unless one is set already.
    """
    if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        shared = Path(request.config.rootpath, ".hypothesis").resolve()
        monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(shared))
    return pytester

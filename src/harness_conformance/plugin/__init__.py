"""The pytest wiring of harness-conformance: its ``pytest11`` entry point, also reached
under ``pytest -p harness_conformance`` through the facade's ``pytest_plugins``.

Wiring only: the option group, ini keys, markers, fixtures and hooks. Logic lives in
the sibling modules of this package and in the parts below. Loading this module imports
nothing heavy: vcrpy, syrupy and Hypothesis are imported inside the fixtures and hooks
that use them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ..redaction import SECRET_ENV_VARS
from ._settings import CASSETTE_FILE

if TYPE_CHECKING:
    from ._cassette import HcCassette

_MODES = ("none", "once", "new_episodes", "all", "rewrite")
_PROFILES = ("off", "seed", "strict")
_PROVIDERS = ("openai-chat", "anthropic-messages", "openai-responses", "gemini")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness-conformance", "harness-conformance: cassettes and invariants")
    options: list[tuple[str, dict[str, Any], str, str]] = [
        ("--hc-record-mode", {"choices": _MODES}, "hc_record_mode",
         "cassette record mode (default none; forced to none when CI is set unless given)"),
        ("--hc-cassette-dir", {}, "hc_cassette_dir",
         "folder of cassettes (default fixtures/cassettes)"),
        ("--hc-invariants", {"choices": _PROFILES}, "hc_invariants",
         "invariant profile for replays (default strict)"),
        ("--hc-provider", {"choices": _PROVIDERS}, "hc_provider",
         "wire format of hc_model: openai-chat (default), anthropic-messages, "
         "openai-responses or gemini; replays need the one recorded with"),
        ("--hc-model", {}, "hc_model",
         "model name; replays need the one recorded with (default: the provider's)"),
        ("--hc-base-url", {}, "hc_base_url",
         "base URL of the model API; replays need the one recorded with"),
        ("--hc-chaos-examples", {}, "hc_chaos_examples",
         "drawn examples per hc_chaos test when its marker gives none (default 20)"),
    ]  # fmt: skip
    for flag, extra, ini, help_text in options:
        group.addoption(flag, dest=ini, default=None, help=help_text, **extra)
        parser.addini(ini, help_text)
    switches = [
        ("--hc-strict-cassettes", "hc_strict_cassettes",
         "also fail tests that load a cassette and leave interactions unplayed"),
        ("--hc-block-network", "hc_block_network",
         "close the network outside loopback for the whole run (collection, every test, "
         "the process's exit), not only in cassette replays; on when CI is set"),
        ("--hc-allow-network", "hc_allow_network",
         "keep the network open outside cassette replays, also when CI is set"),
        ("--hc-fail-on-invalid-args", "hc_fail_on_invalid_args",
         "under checked replay, also fail a test whose recorded tool call breaks its "
         "recorded schema or could not be checked"),
    ]  # fmt: skip
    for flag, ini, help_text in switches:
        group.addoption(flag, dest=ini, action="store_true", default=None, help=help_text)
        parser.addini(ini, f"as {flag}", type="bool", default=False)
    shards = [
        ("--hc-shard", "hc_shard", "K/N",
         "run the K-th of N shards of the collected tests; the tests of a shared cassette "
         "stay in one shard"),
        ("--hc-durations", "hc_durations", "FILE",
         "balance --hc-shard by the seconds in FILE (pytest-split's form; default "
         ".test_durations in the root folder when it exists)"),
        ("--hc-store-durations", "hc_store_durations", "FILE",
         "write each test's seconds to FILE in pytest-split's form, merged over its tests"),
    ]  # fmt: skip
    for flag, dest, metavar, help_text in shards:
        group.addoption(flag, dest=dest, default=None, metavar=metavar, help=help_text)
    group.addoption(
        "--hc-ignore-host",
        dest="hc_ignore_hosts",
        action="append",
        default=None,
        metavar="HOST",
        help="a host that carries no model traffic (a price map, telemetry): never "
        "recorded, refused without failing anything when offline; repeatable",
    )
    parser.addini(
        "hc_ignore_hosts", "as --hc-ignore-host, one host a line", type="linelist", default=[]
    )
    parser.addini(
        "hc_checked_replay",
        "replay the cassette of an hc_cassette test that drives its own loop through the "
        "agent loop after its body passes, with the invariants on and tool arguments "
        "validated; hc_cassette(checked=...) wins (default false)",
        type="bool",
        default=False,
    )
    parser.addini(
        "hc_volatile",
        "request-body paths left out of cassette matching, one a line (e.g. temperature, "
        "messages[*].name); hc_cassette(volatile=[...]) adds more",
        type="linelist",
        default=[],
    )
    parser.addini(
        "hc_secret_env",
        "environment variables whose values recording replaces in cassettes, one a line "
        f"({', '.join(SECRET_ENV_VARS[:-1])} and {SECRET_ENV_VARS[-1]} always are); "
        "hc_cassette(secret_env=[...]) adds more",
        type="linelist",
        default=[],
    )
    parser.addini(
        "hc_vcr_alias",
        "treat @pytest.mark.vcr (pytest-recording) as @pytest.mark.hc_cassette",
        type="bool",
        default=False,
    )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs
    from ._load import load_companions

    pluginmanager.add_hookspecs(hookspecs)
    load_companions(pluginmanager)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Close the network before the first conftest file is imported, when offline."""
    from ._offline import start

    start(early_config)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    for line in (
        "hc_cassette(name=None, record_mode=None, volatile=(), secret_env=(), checked=None, "
        "fail_on_invalid_args=None): record or replay this test's HTTP traffic through a "
        "cassette; its name, record mode, body paths left out of matching, environment "
        "variables holding secrets, and checked replay",
        "hc_invariants(profile, reason=None): invariant profile; 'off' needs a reason",
        "hc_allow_unused(reason): recorded interactions may go unplayed, for this reason",
        "hc_mcp(command=None, url=None, env=None, cwd=None, call_timeout=10.0, "
        "start_timeout=30.0): "
        "the MCP server the hc_mcp fixture starts (over stdio, or at a Streamable HTTP url)",
        "hc_proxy(upstream=None, pace='fast', faults=(), seed=0): the base URL of the API "
        "the hc_proxy fixture records from (default: --hc-base-url, else the provider's), "
        "the pace its replayed answers are sent at ('recorded': as they arrived when "
        "recorded), and chaos faults (KIND[:ARGS]) it serves in their place while replaying",
        "hc_chaos(examples=None, faults=True, chunkings=True): run this cassette test once "
        "per example under Hypothesis, its recorded responses re-chunked and faulted "
        "through the hc_chaos fixture's transport",
    ):
        config.addinivalue_line("markers", line)
    from ..replay import use_rootdir
    from ._network import register
    from ._offline import start
    from ._settings import vcr_alias_enabled
    from ._shards import Shards

    start(config)  # when the plugin was registered too late for the conftest files

    if vcr_alias_enabled(config):
        config.addinivalue_line(
            "markers", "vcr(record_mode=None): as hc_cassette, with hc_vcr_alias = true"
        )
    register(config)
    config.pluginmanager.register(Shards(config), "harness-conformance-shards")
    config.add_cleanup(use_rootdir(config.rootpath))
    # The Hypothesis profiles ``ci`` and ``dev`` are registered (never loaded) when
    # Hypothesis is already imported or ``--hypothesis-profile`` makes Hypothesis's own
    # plugin import it next; importing `harness_conformance.standard` registers them
    # too. First among the configure hooks, so ``--hypothesis-profile=ci`` finds them.
    if "hypothesis" in sys.modules or config.getoption("hypothesis_profile", None):
        from ..strategies import register_profiles

        register_profiles()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    from ._offline import stop

    stop(config)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's loadgroup renames the tests
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    from ._settings import check_cassette_paths
    from ._shards import group_shared

    group_shared(config, items, check_cassette_paths(config, items))


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(
    collector: pytest.Module | pytest.Class, name: str, obj: object
) -> Generator[None, object, object]:
    """Drop the standard suites themselves; check every collected subclass of one."""
    result = yield
    if isinstance(obj, type) and "harness_conformance.standard" in sys.modules:
        from ._suites import collect_class

        return collect_class(collector, name, obj, result)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """For a test with an open cassette, end the call phase with any cassette error its
    body did not raise itself (a miss the agent loop turned into an error turn, unplayed
    interactions, a recording whose save a secret would refuse), and keep what it ended
    with (the cassette then ends as a failed block)."""
    try:
        result = yield
        outcome: BaseException | None = None
    except BaseException as exc:
        result, outcome = None, exc
    from ._cassette import ACTIVE, end_call

    if ACTIVE in item.stash:
        final = end_call(item, outcome)
        if final is not None and final is not outcome:
            raise final
    if outcome is not None:
        raise outcome
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Name the cassette error in the crash line of a failure an SDK wrapped around it."""
    report = yield
    from ._crash import name_the_cassette_error

    name_the_cassette_error(report, call)
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """List the cassettes that ``new_episodes`` left to fail their next replay (from
    the reports, so that pytest-xdist workers' notes are listed too)."""
    from ._cassette import TRAP_PROPERTY

    notes = [
        str(value)
        for reports in terminalreporter.stats.values()
        for report in reports
        for key, value in getattr(report, "user_properties", ())
        if key == TRAP_PROPERTY
    ]
    if notes:
        terminalreporter.section("harness-conformance: cassettes that fail their next replay")
        for note in notes:
            terminalreporter.line(note)


@pytest.fixture(autouse=True)
def _hc_marked_cassette(request: pytest.FixtureRequest) -> None:
    """Open the cassette of a test that carries the ``hc_cassette`` marker (or ``vcr``
    with ``hc_vcr_alias``) without requesting a cassette fixture; under ``hc_chaos``
    (the marker or the fixture) the chaos transport serves it instead of vcrpy, and a
    test that requests ``hc_proxy`` has its cassette opened by the proxy."""
    from ._settings import cassette_marker

    node = request.node
    if "hc_proxy" in node.fixturenames:
        return  # the proxy opens the cassette
    if node.get_closest_marker("hc_chaos") is not None or "hc_chaos" in node.fixturenames:
        request.getfixturevalue("hc_chaos")
    elif cassette_marker(request.node) is not None:
        request.getfixturevalue("hc_cassette")


@pytest.fixture
def invariants(request: pytest.FixtureRequest) -> str:
    """The invariant profile of this test: ``off``, ``seed`` or ``strict``."""
    from ._settings import invariant_profile

    return invariant_profile(request.node)


@pytest.fixture
def hc_base_url(pytestconfig: pytest.Config) -> Callable[..., str]:
    """``hc_base_url(wire="openai-chat")``: the base URL to give the SDK of ``wire``
    (``--hc-base-url``, else the ``hc_base_url`` ini key, else the provider's default),
    with each SDK's own root (`harness_conformance.models.sdk_base_url`)."""
    from ..models import sdk_base_url
    from ._settings import option

    configured = option(pytestconfig, "hc_base_url")

    def base_url(wire: str = "openai-chat") -> str:
        return sdk_base_url(wire, configured)

    return base_url


@pytest.fixture
def hc_cassette(request: pytest.FixtureRequest) -> Iterator[HcCassette]:
    """This test's cassette, active for the whole test (recording or replaying)."""
    from ._cassette import open_cassette

    with open_cassette(request.node, request.node.stash.get(CASSETTE_FILE, None)) as cassette:
        yield cassette


@pytest.fixture
def hc_chaos(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The chaos example this test runs under: its recorded responses served
    re-chunked and faulted (``@pytest.mark.hc_chaos``), or once as recorded."""
    from ._chaos import running

    with running(request.node, request.node.stash.get(CASSETTE_FILE, None)) as chaos:
        yield chaos


@pytest.fixture
def hc_proxy(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A recording proxy on 127.0.0.1 serving this test's cassette (a `CassetteProxy`):
    give ``hc_proxy.base_url`` to a client in another process or language where it
    would use the API's origin."""
    from ._proxy import proxy_for

    with proxy_for(request.node, request.node.stash.get(CASSETTE_FILE, None)) as proxy:
        yield proxy


@pytest.fixture
def hc_model(hc_cassette: HcCassette) -> Any:
    """The model of ``--hc-provider`` (an `OpenAICompatibleModel` by default) for this
    test: a placeholder key when replaying."""
    return hc_cassette.model()


@pytest.fixture
def replay_session(hc_cassette: HcCassette, invariants: str, request: pytest.FixtureRequest) -> Any:
    """``await replay_session(agent, prompts)``: run the agent under this test's cassette
    with the invariant profile of the test; returns a `SessionRun`."""
    from ._cassette import session_replayer

    return session_replayer(hc_cassette, invariants, request.node)


@pytest.fixture
def validation_report() -> Callable[..., Any]:
    """``validation_report(tool)``: the `ValidationReport` of a tool, a DSL spec or a
    JSON Schema dict; snapshot it with ``snapshot(extension_class=ValidationReportSnapshot)``."""
    from ..snapshots import validation_report as build

    return build


@pytest.fixture
def hc_mcp(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The MCP server ``@pytest.mark.hc_mcp`` names, started for this test (an
    `McpCheck`): ``hc_mcp.assert_conforms()`` checks its answers to bad tool arguments,
    ``hc_mcp.call(tool, arguments)`` makes one call."""
    from ._mcp import started

    with started(request.node) as check:
        yield check

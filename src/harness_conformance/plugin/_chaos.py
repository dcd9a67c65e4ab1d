"""The ``hc_chaos`` marker: a cassette test run under re-chunked and faulted replays.

``@pytest.mark.hc_chaos(examples=None, faults=True, chunkings=True)`` runs the test
once per example inside its one pytest item, under Hypothesis: the first example is the
recording as recorded (every body whole, no fault), then ``examples`` drawn ones
(the marker, else ``--hc-chaos-examples``, else the ``hc_chaos_examples`` ini key, else
`DEFAULT_EXAMPLES`). Each draws a cut list per response body (`cassette_chunkings`,
with ``chunkings=True``) and, with ``faults`` true or a list of `FAULT_KINDS`, either no
fault or one of those kinds (`faults`); both shrink towards the recording as recorded,
so a failure prints the smallest example that fails (and, with the profile's
``print_blob``, the ``@reproduce_failure`` line that runs it again). The active
Hypothesis profile gives every other setting (``--hypothesis-seed`` included), and
``@settings``, ``@seed`` and ``@reproduce_failure`` on the test apply; test deadlines are
off, since a replay's time says nothing of the code under test.

The test's cassette is resolved as for ``hc_cassette`` (its ``name=`` included) and
must exist: chaos replays a recording and never records. vcrpy is not used: the
``hc_chaos`` fixture's transport serves the cassette (`HcChaos`), with the network
blocked. Without the marker the fixture serves the recording once, as recorded.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..chaos import FAULT_KINDS, ServedResponse, served_response
from ._chaos_fixture import ChaosCassette, ChaosExample, HcChaos, with_code
from ._settings import (
    cassette_dir,
    cassette_marker,
    invariant_profile,
    option,
    secret_values,
    unused_allowed,
)

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["DEFAULT_EXAMPLES", "ChaosSettings", "chaos_settings", "load_chaos_cassette", "running"]

DEFAULT_EXAMPLES = 20
"""Drawn examples per test when neither the marker nor the options say."""

ARGUMENT = "hc_chaos_example"
"""The name Hypothesis shows the drawn example under."""

_REASON = (
    "while hc_chaos serves the cassette; the test must read it through hc_chaos's "
    "transport (hc_chaos.httpx_client(), hc_chaos.model(), hc_chaos.agent())"
)
_RECORDING_MODES = ("new_episodes", "all", "rewrite")
_KEYWORDS = frozenset({"examples", "faults", "chunkings"})
_CASSETTE_FIXTURES = ("hc_cassette", "hc_model", "replay_session")
_HYPOTHESIS_ATTRIBUTES = (
    "_hypothesis_internal_use_seed",
    "_hypothesis_internal_use_reproduce_failure",
)


@dataclass(frozen=True)
class ChaosSettings:
    """What a test's ``hc_chaos`` marker asks for."""

    examples: int
    faults: tuple[str, ...]
    chunkings: bool


def _examples(item: pytest.Item, given: object) -> int:
    where = "hc_chaos(examples=...)"
    if given is None:
        given = option(item.config, "hc_chaos_examples")
        where = "--hc-chaos-examples / hc_chaos_examples"
        if given is None:
            return DEFAULT_EXAMPLES
        text = str(given).strip()
        given = int(text) if text.isdigit() else text
    if isinstance(given, bool) or not isinstance(given, int) or given < 1:
        raise pytest.UsageError(
            f"{item.nodeid}: {where} takes a whole number of examples of at least 1, not {given!r}"
        )
    return given


def _faults(item: pytest.Item, given: object) -> tuple[str, ...]:
    if given is True:
        return FAULT_KINDS
    if given is False or given is None:
        return ()
    kinds = (given,) if isinstance(given, str) else given
    if not isinstance(kinds, Sequence | frozenset | set) or not kinds:
        raise pytest.UsageError(
            f"{item.nodeid}: hc_chaos(faults=...) takes True, False or a list of fault "
            f"kinds ({', '.join(FAULT_KINDS)}), not {given!r}"
        )
    unknown = [kind for kind in kinds if kind not in FAULT_KINDS]
    if unknown:
        raise pytest.UsageError(
            f"{item.nodeid}: hc_chaos(faults=...) names unknown fault kinds "
            f"{', '.join(map(repr, unknown))}; the kinds are {', '.join(FAULT_KINDS)}"
        )
    return tuple(kind for kind in FAULT_KINDS if kind in kinds)


def chaos_settings(item: pytest.Item) -> ChaosSettings | None:
    """The test's ``hc_chaos`` marker read and checked; None without the marker. A bad
    argument is a usage error naming the test."""
    marker = item.get_closest_marker("hc_chaos")
    if marker is None:
        return None
    unknown = sorted(set(marker.kwargs) - _KEYWORDS)
    if marker.args or unknown:
        extra = [repr(arg) for arg in marker.args] + [f"{key}=" for key in unknown]
        raise pytest.UsageError(
            f"{item.nodeid}: hc_chaos takes only examples=, faults= and chunkings=; drop "
            f"{', '.join(extra)}"
        )
    chunkings = marker.kwargs.get("chunkings", True)
    if not isinstance(chunkings, bool):
        raise pytest.UsageError(
            f"{item.nodeid}: hc_chaos(chunkings=...) takes True or False, not {chunkings!r}"
        )
    faults = _faults(item, marker.kwargs.get("faults", True))
    if not faults and not chunkings:
        raise pytest.UsageError(
            f"{item.nodeid}: hc_chaos(faults=False, chunkings=False) leaves nothing to vary; "
            "allow faults, chunkings or both"
        )
    return ChaosSettings(_examples(item, marker.kwargs.get("examples")), faults, chunkings)


def load_chaos_cassette(item: pytest.Item, path: Path | None) -> ChaosCassette:
    """The test's cassette as the chaos transport serves it; a missing file, a record
    mode that records, or a cassette without a model call fails naming the file."""
    from ..cassettes import resolve_mode
    from ..cassettes.foreign import base_url_of, load_foreign_cassette, wire_formats
    from ..errors import CassetteError
    from ._paths import cassette_path

    if path is None:
        marker = cassette_marker(item)
        name = marker.kwargs.get("name") if marker is not None else None
        path = cassette_path(item, cassette_dir(item.config), name, secret_values(item))
    marker = cassette_marker(item)
    configured = marker.kwargs.get("record_mode") if marker else None
    configured = configured or item.config.getini("hc_record_mode") or None
    try:
        mode = str(resolve_mode(item.config.getoption("hc_record_mode"), configured=configured))
    except ValueError as exc:
        raise pytest.UsageError(f"{item.nodeid}: {exc}") from None
    record = (
        "record it first in a test that makes the same calls under "
        "@pytest.mark.hc_cassette (--hc-record-mode=once; hc_cassette(name=...) shares "
        "the file), then hc_chaos replays it"
    )
    if not path.is_file():
        raise with_code(
            CassetteError(
                f"{path}: no such cassette; hc_chaos replays a recorded cassette and never "
                f"records: {record}",
                code="CASSETTE_MISSING",
                path=str(path),
            )
        )
    if mode in _RECORDING_MODES:
        raise pytest.UsageError(
            f"{item.nodeid}: hc_chaos replays a recorded cassette and never records, so it "
            f"cannot run under the record mode {mode!r}; {record}"
        )
    served: list[ServedResponse] = []
    wires: dict[int, str] = {}
    models: list[str] = []
    urls: list[str] = []
    interactions = load_foreign_cassette(path)
    try:  # a model call in a format no reader knows is refused, as replay refuses it
        formats = wire_formats(path, interactions)
    except CassetteError as exc:
        raise with_code(exc) from None
    for interaction in interactions:
        wire = formats.get(interaction.index)
        if wire is None:
            continue
        served.append(served_response(interaction, wire))
        wires[interaction.index] = wire.name
        body = interaction.request_body
        request = wire.read_request(interaction.uri, body if isinstance(body, dict) else {})
        models.append(request.model or "unknown")
        urls.append(base_url_of(interaction.uri))
    if not served:
        raise with_code(
            CassetteError(
                f"{path}: the cassette holds no model call in a wire format this library "
                "reads, so hc_chaos has nothing to serve",
                code="CASSETTE_CORRUPT",
                path=str(path),
            )
        )
    return ChaosCassette(
        path=path, served=tuple(served), wires=wires, model=models[0], base_url=urls[0]
    )


def _strategy(cassette: ChaosCassette, wanted: ChaosSettings) -> SearchStrategy[ChaosExample]:
    from hypothesis import strategies as st

    from ..chaos import cassette_chunkings, faults

    served = {response.interaction: response for response in cassette.served}
    cuts: SearchStrategy[Any] = st.just({})
    if wanted.chunkings:
        bodies = {index: response.body for index, response in served.items()}
        cuts = cassette_chunkings(bodies)
    fault: SearchStrategy[Any] = st.none()
    if wanted.faults:
        try:
            fault = st.none() | faults(served, wanted.faults)
        except ValueError as exc:
            raise pytest.UsageError(f"{cassette.path}: hc_chaos(faults=...): {exc}") from None
    return st.builds(ChaosExample, cuts=cuts, fault=fault)


def _chaos_test(
    original: Callable[..., Any], chaos: HcChaos, fixed: ChaosExample | None
) -> Callable[..., Any]:
    """``original`` run under ``chaos.play``: for the example ``fixed``, or, when it is
    None, for the one Hypothesis draws as `ARGUMENT`."""

    def example_of(kwargs: dict[str, Any]) -> ChaosExample:
        return fixed if fixed is not None else kwargs.pop(ARGUMENT)

    if inspect.iscoroutinefunction(original):

        async def run_async(*args: Any, **kwargs: Any) -> None:
            with chaos.play(example_of(kwargs)):
                await original(*args, **kwargs)

        run: Callable[..., Any] = run_async
    else:

        def run_sync(*args: Any, **kwargs: Any) -> None:
            with chaos.play(example_of(kwargs)):
                original(*args, **kwargs)

        run = run_sync
    signature = inspect.signature(original)
    parameters = list(signature.parameters.values())
    if fixed is None:
        parameters.append(inspect.Parameter(ARGUMENT, inspect.Parameter.KEYWORD_ONLY))
    run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__"):
        setattr(run, attribute, getattr(original, attribute, None))
    return run


def _hypothesis_test(
    item: pytest.Function, chaos: HcChaos, wanted: ChaosSettings
) -> Callable[..., Any]:
    """The test of ``item`` as a Hypothesis test over the chaos examples, the recording
    as recorded first."""
    try:
        from hypothesis import HealthCheck, example, given, is_hypothesis_test, settings
    except ImportError:
        raise pytest.UsageError(
            f"{item.nodeid}: the hc_chaos marker draws its examples with Hypothesis, which is "
            f'not installed: pip install "harness-conformance[fuzz]"'
        ) from None

    if is_hypothesis_test(item.obj):
        raise pytest.UsageError(
            f"{item.nodeid}: hc_chaos runs the test under Hypothesis itself; drop @given from it"
        )
    strategy = _strategy(chaos.cassette, wanted)
    run = _chaos_test(item.obj, chaos, None)
    run._hypothesis_internal_add_digest = item.nodeid.encode()  # type: ignore[attr-defined]
    # ``@seed``, ``@reproduce_failure`` and ``@settings`` on the test apply to its run.
    for attribute in _HYPOTHESIS_ATTRIBUTES:
        if hasattr(item.obj, attribute):
            setattr(run, attribute, getattr(item.obj, attribute))
    active = getattr(item.obj, "_hypothesis_internal_use_settings", None) or settings()
    chosen = settings(
        active,
        max_examples=wanted.examples,
        deadline=None,
        suppress_health_check=[
            *active.suppress_health_check,
            HealthCheck.function_scoped_fixture,
            HealthCheck.differing_executors,
        ],
    )
    test: Callable[..., Any] = chosen(
        example(**{ARGUMENT: ChaosExample()})(given(**{ARGUMENT: strategy})(run))
    )
    return test


@contextmanager
def running(item: pytest.Item, path: Path | None) -> Iterator[HcChaos]:
    """The ``hc_chaos`` fixture's value for ``item``, whose test function runs under it
    until the block ends: over the chaos examples with the marker, once as recorded
    without."""
    if not isinstance(item, pytest.Function):
        raise pytest.UsageError(f"{item.nodeid}: hc_chaos serves test functions only")
    wanted = chaos_settings(item)
    if "hc_chaos" not in item.fixturenames:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.hc_chaos needs the test to take the hc_chaos "
            "fixture, whose transport serves the cassette (hc_chaos.httpx_client(), "
            "hc_chaos.model(), hc_chaos.agent())"
        )
    clash = [name for name in _CASSETTE_FIXTURES if name in item.fixturenames]
    if clash:
        raise pytest.UsageError(
            f"{item.nodeid}: hc_chaos serves the cassette itself and cannot run beside "
            f"{', '.join(clash)}; build the model with hc_chaos.model() or hc_chaos.agent()"
        )
    chaos = HcChaos(
        load_chaos_cassette(item, path),
        invariants=invariant_profile(item),
        allow_unused=unused_allowed(item) is not None,
        reason=_REASON,
    )
    original = item.obj
    if wanted is None:
        item.obj = _chaos_test(original, chaos, ChaosExample())
    else:
        item.obj = _hypothesis_test(item, chaos, wanted)
    try:
        yield chaos
    finally:
        item.obj = original

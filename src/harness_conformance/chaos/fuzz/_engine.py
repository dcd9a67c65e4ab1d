"""`fuzz_cassette`: Hypothesis searches one cassette for a chunking or a fault the stack
mishandles, and `run_example` replays one example exactly.

The cassette is first replayed without chaos (`baseline`): through `replay_foreign` and
through the SDK clients with every body whole. When those disagree or break ``strict``,
that is the one failure reported (the example ``{"cuts": {}}``) and no fault is drawn,
since every property is judged against them. Otherwise the examples are dealt round
the properties in turn: the chunking property (`check_chunking`, cut lists drawn by
`cassette_chunkings`), then one fault property per label of `FAULT_LABELS` that some
response can take (`check_fault`, faults drawn by `label_faults`). A budget of at least
one example per property exercises every applicable label of the cassette; a smaller one
exercises as many, starting at property number ``start``, so a run over many cassettes
that moves ``start`` on by the budget each time (as the ``fuzz`` command does) still
reaches every label. A property whose examples run out (one interaction that can take
a reset before its body has one example) runs fewer than its share.

Each property is a Hypothesis test built at call time: no example database, no
deadline, health checks that speak of slow or large data off, nothing printed, seeded
from ``seed`` and the property's name, so one seed gives the same examples on every run
and every machine. On a failure Hypothesis shrinks the example; the shrunk one and what
its replay got wrong are kept (`FuzzFailure`), and its JSON form (`FuzzExample.as_json`)
replays it through `run_example`.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import CassetteError
from .._chunkings import cassette_chunkings
from .._faults import FAULT_KINDS, FAULT_LABELS
from .._outline import differences, outline
from ._checks import Baseline, baseline, check_chunking, check_fault
from ._examples import FuzzExample, check_fits, label_faults, label_targets

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["DEFAULT_EXAMPLES", "FuzzFailure", "FuzzResult", "fuzz_cassette", "run_example"]

DEFAULT_EXAMPLES = 30
"""Examples per cassette when none are asked for."""

NO_MODEL_CALLS = "no model calls: nothing to fuzz"
"""The note of a cassette that holds no model call."""


@dataclass(frozen=True, kw_only=True)
class FuzzFailure:
    """An example a property fails on, shrunk, with what its replay got wrong."""

    example: FuzzExample
    """The shrunk example; its JSON form replays it (`run_example`)."""
    problems: tuple[str, ...]
    """What the replay of the example got wrong, one problem per item."""
    found_after: int
    """How many examples of the property ran until the first failing one."""
    shrinks: int
    """How many more replays shrinking took."""

    @property
    def label(self) -> str:
        """The property: ``chunking`` or the fault's label."""
        return self.example.label


@dataclass(frozen=True, kw_only=True)
class FuzzResult:
    """What fuzzing one cassette found."""

    path: str
    """The cassette."""
    seed: int
    """The seed the examples were drawn from."""
    labels: Mapping[str, int] = field(default_factory=dict)
    """Examples run per property (``chunking`` and fault labels), shrinking aside."""
    failures: tuple[FuzzFailure, ...] = ()
    """One failure per property that failed, shrunk."""
    error: CassetteError | None = None
    """Why the cassette could not be replayed at all; None when it could."""
    note: str | None = None
    """Why nothing was fuzzed although the cassette reads (`NO_MODEL_CALLS`), or what
    was left out."""

    @property
    def examples(self) -> int:
        """Examples run, over every property."""
        return sum(self.labels.values())

    @property
    def chunkings(self) -> int:
        """Examples of the chunking property."""
        return self.labels.get("chunking", 0)

    @property
    def faults(self) -> dict[str, int]:
        """Examples per fault label."""
        return {label: n for label, n in self.labels.items() if label != "chunking"}

    @property
    def passed(self) -> bool:
        """Whether the cassette was replayed and no property failed."""
        return self.error is None and not self.failures


class _Failed(Exception):
    """Raised inside a property to tell Hypothesis the example fails."""

    def __init__(self, example: FuzzExample, problems: Sequence[str]) -> None:
        super().__init__(problems[0])
        self.example = example
        self.problems = tuple(problems)


def _property_seed(seed: int, name: str) -> int:
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _first_failed(exc: BaseException) -> _Failed | None:
    if isinstance(exc, _Failed):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = _first_failed(inner)
        if found is not None:
            return found
    return None


def _search(
    strategy: SearchStrategy[FuzzExample],
    check: Callable[[FuzzExample], list[str]],
    *,
    budget: int,
    seed: int,
    on_example: Callable[[FuzzExample], None] | None,
) -> tuple[int, FuzzFailure | None]:
    """Run one property for ``budget`` examples; the examples run and the shrunk
    failure, if any."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as seeded

    ran = calls = 0
    found_at: int | None = None

    def prop(example: FuzzExample) -> None:
        nonlocal ran, calls, found_at
        calls += 1
        if found_at is None:
            ran += 1
            if on_example is not None:
                on_example(example)
        try:
            problems = check(example)
        except Exception as exc:  # judging the example failed: a finding to replay too
            problems = [f"judging the example raised {type(exc).__name__}: {exc}"]
        if problems:
            found_at = calls if found_at is None else found_at
            raise _Failed(example, problems)

    test = seeded(seed)(
        settings(
            max_examples=budget,
            database=None,
            derandomize=False,
            deadline=None,
            phases=(Phase.explicit, Phase.generate, Phase.shrink),
            report_multiple_bugs=False,
            print_blob=False,
            verbosity=Verbosity.quiet,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.large_base_example,
                HealthCheck.filter_too_much,
            ],
        )(given(strategy)(prop))
    )
    try:
        test()
    except Exception as exc:
        failed = _first_failed(exc)
        if failed is None:
            raise
        problems = failed.problems
        if failed is not exc:  # Hypothesis's report that the failure did not recur
            problems += ("the failure did not recur when the shrunk example ran again",)
        shrinks = calls - (found_at or calls)
        return ran, FuzzFailure(
            example=failed.example, problems=problems, found_after=ran, shrinks=shrinks
        )
    return ran, None


def _wanted(kinds: Iterable[str]) -> list[str]:
    """The fault labels ``kinds`` selects: each a label, or a kind (all its labels)."""
    wanted: set[str] = set()
    for name in kinds:
        if name in FAULT_LABELS:
            wanted.add(name)
        elif name in FAULT_KINDS:
            wanted.update(label for label in FAULT_LABELS if _kind_of(label) == name)
        else:
            raise ValueError(
                f"unknown fault kind or label {name!r}; use one of {', '.join(FAULT_KINDS)} "
                f"or of {', '.join(FAULT_LABELS)}"
            )
    return [label for label in FAULT_LABELS if label in wanted]


def _kind_of(label: str) -> str:
    head = label.split(" ")[0]
    return "status" if head.isdecimal() else head


def _budget(examples: int, names: Sequence[str], start: int) -> dict[str, int]:
    """Examples per property: example ``i`` goes to property ``(start + i) % len(names)``."""
    counts = Counter(names[(start + i) % len(names)] for i in range(examples))
    return {name: counts[name] for name in names if counts[name]}


def _broken_baseline(base: Baseline) -> list[str]:
    """Problems of the replay without chaos, which every example is judged against."""
    problems = [f"without chaos, through the SDK clients: {p}" for p in base.problems]
    problems += [
        f"without chaos, session {n}: seq {v.seq} [{v.rule}] {v.message}"
        for n, session in enumerate(base.whole.replay.sessions, 1)
        for v in session.violations
    ]
    return problems + [
        f"without chaos, through the SDK clients: {difference}"
        for difference in differences(outline(base.foreign), outline(base.whole.replay))
    ]


def fuzz_cassette(
    path: str | Path,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int = 0,
    kinds: Iterable[str] = FAULT_LABELS,
    chunking: bool = True,
    start: int = 0,
    on_example: Callable[[FuzzExample], None] | None = None,
) -> FuzzResult:
    """Fuzz one cassette with ``examples`` examples drawn from ``seed`` (see the module
    docstring): re-chunkings unless ``chunking`` is false, and faults of ``kinds``
    (labels of `FAULT_LABELS`, or kinds of `FAULT_KINDS` for all their labels);
    ``start`` turns the rotation of the budget over the properties. ``on_example`` is
    called with every example before it runs (shrinking aside).

    A cassette that cannot be replayed gives a result with its `CassetteError`; one with
    no model call gives a result noting it. `ValueError` for an unknown kind or label,
    fewer than one example or a negative ``start``.
    """
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 1:
        raise ValueError(f"fuzzing needs at least 1 example per cassette, got {examples!r}")
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise ValueError(f"start counts from 0, got {start!r}")
    labels = _wanted(kinds)
    try:
        base = baseline(path)
    except CassetteError as exc:
        return FuzzResult(path=str(path), seed=seed, error=exc)
    if not base.served:
        return FuzzResult(path=str(path), seed=seed, note=NO_MODEL_CALLS)
    broken = _broken_baseline(base)
    if broken:
        whole = FuzzExample(cuts={})
        failure = FuzzFailure(example=whole, problems=tuple(broken), found_after=1, shrinks=0)
        note = "no example was drawn: the replay without chaos already fails"
        return FuzzResult(path=str(path), seed=seed, failures=(failure,), note=note)
    targets = label_targets(base)
    names = (["chunking"] if chunking else []) + [label for label in labels if label in targets]
    if not names:
        return FuzzResult(path=str(path), seed=seed, note="no response can take those faults")
    counts: dict[str, int] = {}
    failures: list[FuzzFailure] = []
    # A body under two bytes has no place to cut: it is always sent whole.
    bodies = {i: served.body for i, served in base.served.items() if len(served.body) > 1}
    with tempfile.TemporaryDirectory(prefix="harness-fuzz-") as logs:
        for name, budget in _budget(examples, names, start).items():
            if name == "chunking":
                strategy = cassette_chunkings(bodies).map(_as_cuts_example)
            else:
                strategy = label_faults(base, name).map(lambda fault: FuzzExample(fault=fault))
            counts[name], found = _search(
                strategy,
                lambda example: _check(base, example, Path(logs)),
                budget=budget,
                seed=_property_seed(seed, name),
                on_example=on_example,
            )
            if found is not None:
                failures.append(found)
    return FuzzResult(path=str(path), seed=seed, labels=counts, failures=tuple(failures))


def _as_cuts_example(cuts: Mapping[int, Sequence[int]]) -> FuzzExample:
    return FuzzExample(cuts={index: tuple(offsets) for index, offsets in cuts.items()})


def _check(base: Baseline, example: FuzzExample, logs: Path | None = None) -> list[str]:
    if example.fault is None:
        return check_chunking(base, example.cuts)
    return check_fault(base, example.fault, example.cuts, logs=logs)


def run_example(path: str | Path, example: FuzzExample | Mapping[str, Any]) -> list[str]:
    """Replay one example (or its JSON form) on the cassette at ``path`` and return what
    its property finds wrong; an empty list is a pass.

    Raises what `replay_foreign` raises for a cassette it cannot read, and `ValueError`
    for an example that does not fit the cassette (`check_fits`) or a JSON form that is
    no example.
    """
    if not isinstance(example, FuzzExample):
        example = FuzzExample.from_json(example)
    base = baseline(path)
    check_fits(base, example)
    return _check(base, example)

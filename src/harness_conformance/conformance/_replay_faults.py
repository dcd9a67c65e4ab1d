"""The weather a replay vector is played under: its optional ``fault.json``.

``fault.json`` holds a ``fault`` (one recorded response spoiled at the HTTP or
event-stream level, a `harness_conformance.chaos.Fault`), ``cuts`` (byte offsets at
which recorded response bodies are split, by interaction index) or both, and
``retries``: how many more model calls per step than the recording made the loop may
make. `read_vector_fault` checks the file against ``$defs/fault`` of the meta-schema
and against the cassette (the interaction is a model call whose response takes the
kind; every cut lies strictly inside its body), naming the file and the JSON path of
each problem. `replay_faulted` plays the cassette through the provider SDK client of
each wire format under that weather (`harness_conformance.chaos.areplay_rechunked`),
with the ``strict`` invariants profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._files import VectorFileError
from ._meta import MetaSchema, read_checked

__all__ = [
    "VectorFault",
    "failure_facts",
    "read_vector_fault",
    "replay_faulted",
]

if TYPE_CHECKING:
    from ..cassettes import ForeignReplay
    from ..chaos import Fault
    from ..errors import LlmFailure


@dataclass(frozen=True, kw_only=True)
class VectorFault:
    """The weather of one replay vector, as its ``fault.json`` gives it."""

    fault: Fault | None
    """The fault spoiling one recorded response, if any."""
    cuts: tuple[tuple[int, tuple[int, ...]], ...] = ()
    """The cut list of each interaction that has one, by interaction index."""
    retries: int = 0
    """More model calls per step than the recording made that the loop may make."""

    def cuts_for(self, interaction: int, _body: bytes) -> tuple[int, ...]:
        """The cut list of ``interaction`` (none: the body is sent whole)."""
        return dict(self.cuts).get(interaction, ())


def read_vector_fault(path: Path, cassette: Path, meta: MetaSchema) -> VectorFault:
    """The weather ``path`` (a ``fault.json``) gives for ``cassette``, checked against
    ``$defs/fault`` of ``meta`` (the replay meta-schema); `VectorFileError` naming the
    file and the JSON path of every problem."""
    from ..chaos import Fault, applicable_kinds, served_responses
    from ..errors import CassetteError

    data = read_checked(path, meta, definition="fault", versioned=False)
    try:
        served = served_responses(cassette)
    except CassetteError as exc:
        raise VectorFileError(cassette, [str(exc)]) from exc
    calls = sorted(served)
    problems: list[str] = []
    fault = None
    if "fault" in data:
        try:
            fault = Fault(**_fault_fields(data["fault"]))
        except (TypeError, ValueError) as exc:
            problems.append(f"$.fault: {exc}")
        else:
            response = served.get(fault.interaction)
            if response is None:
                problems.append(
                    f"$.fault.interaction: {fault.interaction} is no model call of "
                    f"{cassette.name}; its model calls are {calls}"
                )
            elif fault.kind not in applicable_kinds(response):
                problems.append(
                    f"$.fault.kind: interaction {fault.interaction} (HTTP {response.status}) "
                    f"cannot take a {fault.kind} fault: its body is no event stream; use one "
                    f"of {', '.join(applicable_kinds(response))}"
                )
    cuts: list[tuple[int, tuple[int, ...]]] = []
    for key, offsets in data.get("cuts", {}).items():
        where = f"$.cuts[{key!r}]"
        response = served.get(int(key))
        if response is None:
            problems.append(
                f"{where}: {key} is no model call of {cassette.name}; its model calls are {calls}"
            )
            continue
        size = len(response.body)
        previous = 0
        for index, offset in enumerate(offsets):
            if not previous < offset < size:
                problems.append(
                    f"{where}[{index}]: offset {offset} does not lie after {previous} and "
                    f"inside the {size}-byte body of interaction {key} (cuts increase "
                    f"strictly between 1 and {size - 1})"
                )
                break
            previous = offset
        else:
            cuts.append((int(key), tuple(offsets)))
    if problems:
        raise VectorFileError(path, problems)
    return VectorFault(fault=fault, cuts=tuple(sorted(cuts)), retries=data.get("retries", 0))


def _fault_fields(fault: Mapping[str, Any]) -> dict[str, Any]:
    """``fault.json``'s fault as `Fault` fields: ``retryAfterMs`` in whole seconds."""
    fields = {key: value for key, value in fault.items() if key != "retryAfterMs"}
    if "retryAfterMs" in fault:
        wait = fault["retryAfterMs"]
        fields["retry_after"] = wait // 1000 if type(wait) is int and wait % 1000 == 0 else wait
    return fields


def failure_facts(failure: LlmFailure) -> dict[str, Any]:
    """An `LlmFailure` as ``expected.json`` lists it: ``code``, ``status`` (null for
    none) and ``retryAfterMs`` when there is a wait."""
    facts: dict[str, Any] = {"code": failure.code, "status": failure.status}
    if failure.retry_after is not None:
        wait = round(failure.retry_after * 1000, 3)
        facts["retryAfterMs"] = int(wait) if float(wait).is_integer() else wait
    return facts


def replay_faulted(
    cassette: Path, weather: VectorFault
) -> tuple[ForeignReplay, tuple[LlmFailure, ...]]:
    """Replay ``cassette`` under ``weather`` with the ``strict`` profile: the
    `ForeignReplay` and the failure of every model call that failed."""
    import anyio

    from ..chaos import ChaosReplay, areplay_rechunked

    box: list[ChaosReplay] = []

    async def run() -> None:
        box.append(
            await areplay_rechunked(
                cassette,
                weather.cuts_for,
                profile="strict",
                fault=weather.fault,
                extra_attempts=weather.retries,
            )
        )

    anyio.run(run)
    return box[0].replay, box[0].failures

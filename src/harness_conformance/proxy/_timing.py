"""When each event of a recorded answer arrived, and replaying answers at that pace.

A recording keeps, beside the response, ``timing``: the seconds from the moment the
request went upstream until each event of an event-stream body had arrived whole
(one value for any other body, when it had arrived whole). Under the pace
``recorded`` a replay sends each event that long after the request came in; under
``fast`` (the default) it sends everything at once. A cassette without ``timing``, or
with fewer values than events, sends the events it has no time for at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["PACES", "TIMING_KEY", "event_times", "recorded_times"]

PACES = ("fast", "recorded")
"""The paces a replay can run at."""

TIMING_KEY = "timing"
"""The response key that holds the arrival times, as ``{"events": [seconds, ...]}``."""


def event_times(arrivals: Sequence[tuple[float, int]], parts: Sequence[bytes]) -> list[float]:
    """When each of ``parts`` (the body's events, in order) had arrived whole, from
    ``arrivals``: the time each piece of the body arrived and its size, in order."""
    times: list[float] = []
    received = 0
    pieces = iter(arrivals)
    at = 0.0
    end = 0
    for part in parts:
        end += len(part)
        while received < end:
            try:
                at, size = next(pieces)
            except StopIteration:
                break
            received += size
        times.append(round(at, 4))
    return times


def recorded_times(response: Mapping[str, Any]) -> list[float]:
    """The arrival times a recorded response holds, or none when it holds none that
    read as a list of non-negative numbers in order."""
    timing = response.get(TIMING_KEY)
    values = timing.get("events") if isinstance(timing, Mapping) else None
    if not isinstance(values, list):
        return []
    kept: list[float] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            return []
        if kept and value < kept[-1]:
            return []
        kept.append(float(value))
    return kept

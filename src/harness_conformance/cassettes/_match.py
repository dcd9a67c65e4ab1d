"""Request matching for replay, and readable reports when replay and recording disagree.

A live request matches a recorded one when method, host and path are equal and the
JSON bodies are equal once normalised (`MATCH_ON`). Normalising a body:

- drops the volatile paths: `DEFAULT_VOLATILE` (``stream_options``, ``user``,
  ``metadata``) plus any declared per cassette, written as simple paths such as
  ``temperature`` or ``messages[*].name`` (``[*]`` is every item of a list, ``[2]`` one
  item; a path ends with a key);
- renumbers tool-call ids: each id in ``messages[*].tool_calls[*].id`` and
  ``messages[*].tool_call_id`` becomes ``call#N``, N counting ids in order of first
  appearance, so a replayed model that issued other ids still matches.

A body that is not JSON is compared byte for byte. Among several recorded requests
that match, the first one not yet played answers, so identical requests replay in
recorded order.

`MatchingCassette` is the vcrpy cassette used for replay: where vcrpy would raise its
``CannotOverwriteExistingCassetteException`` it raises `CassetteError`
``CASSETTE_MISMATCH`` instead (``CASSETTE_MISSING`` when there is no cassette),
whose message shows a unified diff of the live body against the closest unplayed
recorded request, and keeps the error in `MatchingCassette.failures` so the layer
around the replay can report it even when a client swallowed it. `unused_error`
describes the recorded interactions a replay never played (``CASSETTE_UNUSED``).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from vcr.cassette import Cassette  # type: ignore[import-untyped]
from vcr.matchers import requests_match  # type: ignore[import-untyped]
from vcr.record_mode import RecordMode  # type: ignore[import-untyped]
from vcr.util import read_body  # type: ignore[import-untyped]

from ..errors import CassetteError
from ._advice import REWRITE, UNUSED, VOLATILE, base_url_hint
from ._decompress import content_encodings, decode_layers
from ._filter_once import FilterOnce
from ._loaded import loaded_key, remember_load, restore_load
from ._shared_filters import SharedResponseFilter

__all__ = [
    "DEFAULT_VOLATILE",
    "MATCH_ON",
    "Matcher",
    "MatchingCassette",
    "canonical_body",
    "clear_match_caches",
    "json_body",
    "json_body_matcher",
    "mismatch_error",
    "parse_volatile_path",
    "register_json_body",
    "unused_error",
]

DEFAULT_VOLATILE: tuple[str, ...] = ("stream_options", "user", "metadata")
"""Body paths that never take part in matching."""

MATCH_ON: tuple[str, ...] = ("method", "host", "path", "json_body")
"""The vcrpy matchers a replay uses, by registered name."""

Matcher = Callable[[Any, Any], None]
"""A vcrpy matcher: raises AssertionError when two requests differ."""

_MAX_DIFF_LINES = 80
_EXCERPT = 100
_SEGMENT = re.compile(r"([^.\[\]]+)((?:\[(?:\*|\d+)\])*)")
_ALL = object()

# -- normalised bodies -----------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def parse_volatile_path(path: str) -> tuple[object, ...]:
    """Split ``messages[*].name`` into steps: keys (str), indexes (int) and ``[*]``.

    Raises ValueError, naming the path, for anything else.
    """
    steps: list[object] = []
    for part in path.split("."):
        found = _SEGMENT.fullmatch(part)
        if found is None:
            raise ValueError(
                f"bad volatile path {path!r}: write keys joined by dots, each optionally "
                "followed by [*] or [N], e.g. 'temperature' or 'messages[*].name'"
            )
        steps.append(found.group(1))
        for index in re.findall(r"\[(\*|\d+)\]", found.group(2)):
            steps.append(_ALL if index == "*" else int(index))
    if not isinstance(steps[-1], str):
        raise ValueError(f"bad volatile path {path!r}: it must end with a key, not an index")
    return tuple(steps)


def _drop(value: object, steps: tuple[object, ...]) -> None:
    """Remove what ``steps`` reaches inside ``value``; missing parts are ignored."""
    step, rest = steps[0], steps[1:]
    if isinstance(step, str):
        if not isinstance(value, dict) or step not in value:
            return
        if not rest:
            del value[step]
            return
        children: list[object] = [value[step]]
    elif not isinstance(value, list):
        return
    elif step is _ALL:
        children = list(value)
    elif isinstance(step, int) and step < len(value):
        children = [value[step]]
    else:
        return
    for child in children:
        _drop(child, rest)


def _renumber_tool_call_ids(body: object) -> None:
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return
    tokens: dict[str, str] = {}

    def token(value: str) -> str:
        return tokens.setdefault(value, f"call#{len(tokens) + 1}")

    for message in messages:
        if not isinstance(message, dict):
            continue
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                call["id"] = token(call["id"])
        if isinstance(message.get("tool_call_id"), str):
            message["tool_call_id"] = token(message["tool_call_id"])


def _as_bytes(body: object) -> bytes | None:
    if body is None:
        return b""
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    return None


@functools.lru_cache(maxsize=128)
def _canonical_bytes(body: bytes, volatile: tuple[str, ...]) -> str:
    if not body.strip():
        return ""
    try:
        return _canonical_value(json.loads(body), volatile)
    except (UnicodeDecodeError, ValueError, RecursionError):
        # Not JSON, or JSON nested too deeply to walk: compared as its text.
        text = body.decode("utf-8", "backslashreplace")
        return "(body is not JSON)\n" + text


def clear_match_caches() -> None:
    """Forget the parsed volatile paths and the canonical request bodies kept for
    matching."""
    parse_volatile_path.cache_clear()
    _canonical_bytes.cache_clear()


def _canonical_value(value: object, volatile: tuple[str, ...]) -> str:
    for path in (*DEFAULT_VOLATILE, *volatile):
        _drop(value, parse_volatile_path(path))
    _renumber_tool_call_ids(value)
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def canonical_body(body: object, volatile: Iterable[str] = ()) -> str:
    """The normalised body as pretty-printed JSON (sorted keys), the form bodies are
    compared and diffed in. ``body`` is bytes, text, or an already parsed JSON value."""
    paths = tuple(volatile)
    raw = _as_bytes(body)
    if raw is not None:
        return _canonical_bytes(raw, paths)
    return _canonical_value(json.loads(json.dumps(body)), paths)


def _request_body(request: Any, volatile: tuple[str, ...]) -> str:
    """The canonical body of a request; one sent with ``content-encoding`` is compared
    decoded, as the recorder stores it."""
    body = read_body(request)
    headers = getattr(request, "headers", None)
    encodings = content_encodings(headers) if isinstance(headers, Mapping) else []
    if encodings and isinstance(body, bytes):
        with contextlib.suppress(ValueError):  # else compared as the bytes it is
            body = decode_layers(body, encodings)
    return canonical_body(body, volatile)


# -- the matcher -----------------------------------------------------------------------


def json_body_matcher(volatile: Iterable[str] = ()) -> Matcher:
    """A vcrpy matcher named ``json_body`` comparing normalised bodies; ``volatile``
    adds paths to `DEFAULT_VOLATILE`. Bad paths raise ValueError here, not mid-replay."""
    if isinstance(volatile, str):
        raise TypeError("volatile must be a sequence of paths, not a single string")
    paths = tuple(volatile)
    for path in paths:
        if not isinstance(path, str):
            raise TypeError(f"a volatile path must be a string, not {type(path).__name__}")
        parse_volatile_path(path)

    def json_body(live: Any, recorded: Any) -> None:
        if _request_body(live, paths) != _request_body(recorded, paths):
            raise AssertionError("the JSON bodies differ after normalisation")

    return json_body


json_body: Matcher = json_body_matcher()
"""The ``json_body`` matcher with only `DEFAULT_VOLATILE` ignored."""


def register_json_body(vcr: Any, volatile: Iterable[str] = ()) -> None:
    """Register ``json_body`` (with ``volatile`` ignored) on a ``vcr.VCR``."""
    vcr.register_matcher("json_body", json_body_matcher(volatile))


# -- reports ---------------------------------------------------------------------------


def _route(request: Any) -> tuple[str, str, str]:
    return (str(request.method).upper(), str(request.host), str(request.path or "/"))


def _describe(index: int | None, request: Any) -> str:
    """``#3 POST api.deepseek.com/chat/completions``; the query is left out, since some
    providers put the key there."""
    method, host, path = _route(request)
    number = "" if index is None else f"#{index} "
    return f"{number}{method} {host}{path}"


def _diff(recorded: str, live: str, label: str) -> list[str]:
    return list(
        difflib.unified_diff(
            recorded.splitlines(), live.splitlines(), label, "live request", n=2, lineterm=""
        )
    )


def _distance(diff: list[str]) -> tuple[int, float]:
    """How far apart a diff's two sides are: changed lines, then how unlike the removed
    and added text are, so a reworded line beats a replaced one."""
    removed = "\n".join(line[1:] for line in diff[2:] if line.startswith("-"))
    added = "\n".join(line[1:] for line in diff[2:] if line.startswith("+"))
    changed = sum(1 for line in diff[2:] if line[:1] in "+-")
    return changed, 1.0 - difflib.SequenceMatcher(None, removed, added).ratio()


def _closest(
    cassette: Any, live: Any, volatile: tuple[str, ...]
) -> tuple[int, Any, list[str], bool] | None:
    """The closest unplayed recorded request: (index, request, diff, same route).

    Recordings with the live request's method, host and path come first; among them
    the smallest `_distance` wins, the earliest on a tie."""
    body = _request_body(live, volatile)
    unplayed = [
        (index, request)
        for index, (request, _response) in enumerate(cassette.data)
        if cassette.play_counts[index] == 0
    ]
    same_route = [(i, r) for i, r in unplayed if _route(r) == _route(live)]
    candidates = same_route or unplayed
    best: tuple[int, Any, list[str], bool] | None = None
    best_distance = (0, 0.0)
    for index, request in candidates:
        label = f"recorded {_describe(index, request)}"
        diff = _diff(_request_body(request, volatile), body, label)
        distance = _distance(diff)
        if best is None or distance < best_distance:
            best, best_distance = (index, request, diff, bool(same_route)), distance
    return best


def _clip(diff: list[str]) -> list[str]:
    if len(diff) <= _MAX_DIFF_LINES:
        return diff
    return [*diff[:_MAX_DIFF_LINES], f"... ({len(diff) - _MAX_DIFF_LINES} more diff lines)"]


def mismatch_error(cassette: Any, live: Any, volatile: Iterable[str] = ()) -> CassetteError:
    """The error for a live request that ``cassette`` cannot answer."""
    paths = tuple(volatile)
    path = str(cassette.path)
    mode = getattr(cassette.record_mode, "value", cassette.record_mode)
    asked = _describe(None, live)
    if not cassette.rewound and not len(cassette):
        if os.path.exists(path):
            return CassetteError(
                f"cassette {path} exists but no interaction could be loaded from it, so "
                f"{asked} has no recorded answer; fix the file or {REWRITE}",
                code="CASSETTE_CORRUPT",
                path=path,
            )
        return CassetteError(
            f"cassette {path} does not exist, and record mode {mode!r} replays only, so "
            f"{asked} has no recorded answer; record it by running once with "
            "--hc-record-mode=once and the provider's API key in the environment",
            code="CASSETTE_MISSING",
            path=path,
        )
    lines = [f"cassette {path} has no unplayed recording matching {asked}"]
    closest = _closest(cassette, live, paths)
    if closest is None:
        lines.append(_all_played(cassette, live))
        lines.append(f"if the extra request is intended, {REWRITE}")
    else:
        index, request, diff, same_route = closest
        if not same_route:
            method, host, route = _route(live)
            lines += base_url_hint(_route(live), _route(request))
            lines.append(
                f"no unplayed recorded request is a {method} to {host}{route}; the closest "
                f"is {_describe(index, request)}"
            )
        if diff:
            lines.append(f"body of the live request against recorded {_describe(index, request)}:")
            lines += _clip(diff)
        else:
            lines.append(f"its body equals recorded {_describe(index, request)}")
        lines.append(f"if the change is intended, {REWRITE}; if it is noise, {VOLATILE}")
    return CassetteError("\n".join(lines), code="CASSETTE_MISMATCH", path=path)


def _all_played(cassette: Any, live: Any) -> str:
    count = len(cassette)
    played = [
        index
        for index, (request, _response) in enumerate(cassette.data)
        if requests_match(live, request, cassette._match_on)
    ]
    if played:
        which = ", ".join(f"#{index}" for index in played)
        return (
            f"it matches recorded {which}, all already played: the code under test makes "
            f"more such requests than were recorded"
        )
    if not count:
        return "the cassette holds no interactions"
    return f"all {count} recorded interactions were already played"


def _excerpt(request: Any) -> str:
    try:
        value = json.loads(_as_bytes(read_body(request)) or b"null")
    except (UnicodeDecodeError, ValueError, TypeError, RecursionError):
        return "(body is not JSON)"
    messages = value.get("messages") if isinstance(value, dict) else None
    if isinstance(messages, list) and messages:
        label, shown = "last message ", messages[-1]
    else:
        label, shown = "body ", value
    text = json.dumps(shown, ensure_ascii=False, sort_keys=True)
    return label + (text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…")


def unused_error(cassette: Any, *, loaded: int | None = None) -> CassetteError | None:
    """``CASSETTE_UNUSED`` listing the interactions ``cassette`` never played, or None;
    with ``loaded``, only the first ``loaded`` (those read from the file) count."""
    unplayed = [
        (index, request)
        for index, (request, _response) in enumerate(cassette.data)
        if cassette.play_counts[index] == 0 and (loaded is None or index < loaded)
    ]
    if not unplayed:
        return None
    path = str(cassette.path)
    lines = [
        f"cassette {path}: {len(unplayed)} of {len(cassette)} recorded interactions were "
        "never played:"
    ]
    lines += [f"  {_describe(i, r)}: {_excerpt(r)}" for i, r in unplayed]
    lines.append(UNUSED)
    return CassetteError("\n".join(lines), code="CASSETTE_UNUSED", path=path)


# -- the vcrpy cassette ----------------------------------------------------------------


class MatchingCassette(Cassette):  # type: ignore[misc]  # vcrpy ships no type information
    """A vcrpy ``Cassette`` that reports misses as `CassetteError` and remembers them.

    Built by vcrpy's own ``Cassette.load``; the keywords it adds are ``volatile`` (the
    cassette's extra volatile paths) and ``chain``, the key of a chain of hooks whose
    results other cassettes may share (`shared_chain`).
    """

    failures: list[CassetteError]
    """Every miss raised during replay, oldest first."""
    _before_record_request: Callable[[Any], Any]
    _before_record_response: Callable[[Any], Any]

    def __init__(
        self,
        *args: Any,
        volatile: Sequence[str] = (),
        chain: Callable[[], bytes] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.volatile = tuple(volatile)
        self.failures = []
        self._chain = chain
        self._before_record_request = FilterOnce(self._before_record_request, chain)
        if chain is not None:
            self._before_record_response = SharedResponseFilter(self._before_record_response, chain)

    def _load(self) -> None:
        # A replaying cassette of a file loaded before under the same chain takes copies
        # of that load (`harness_conformance.cassettes._loaded`).
        key = loaded_key(self, self._chain)
        if key is not None and restore_load(self, key):
            return
        super()._load()
        if key is not None:
            remember_load(self, key)

    def can_play_response_for(self, request: Any) -> bool:
        # vcrpy asks this first; where it would then refuse to record, report the miss.
        # The answer is vcrpy's, with the request matched as ``play_response`` matches it:
        # filtered once (vcrpy's own ``in`` would filter the filtered request again).
        playable = (
            bool(self._before_record_request(request))
            and any(
                self.play_counts[index] == 0 or self.allow_playback_repeats
                for index, _response in self._responses(request)
            )
            and self.record_mode != RecordMode.ALL
            and (self.rewound or self.allow_playback_repeats)
        )
        if not playable and self.write_protected and self.filter_request(request):
            error = mismatch_error(self, self._before_record_request(request), self.volatile)
            self.failures.append(error)
            raise error
        return playable

"""The peer of the replay benchmark: plain vcrpy and the official openai SDK.

A cassette is replayed the way a test suite without harness-conformance replays it: a
``vcr.VCR`` with ``record_mode="none"``, matching on method, host and path, each
interaction played once (``allow_playback_repeats=False``), the stock YAML serializer;
inside it, the synchronous ``openai.OpenAI`` client sends the recorded request bodies in
recorded order with ``client.chat.completions.create`` and reads every response to the
end (streams iterated, recorded HTTP errors caught as the SDK raises them).

pydantic-ai's ``parsed_body`` cassettes do not load in stock vcrpy; `stock_text` turns
them back into string bodies, as pydantic-ai's own serializer does on load.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import openai
import vcr
from vcr.serializers import yamlserializer

__all__ = ["CannotDrive", "PeerReplay", "PeerRun", "stock_text"]

MATCH_ON = ("method", "host", "path")
"""What the timed replay matches on: vcrpy's usual choice for JSON APIs."""
CHECK_ON = (*MATCH_ON, "recorded_json_body")
"""What the untimed check matches on: also the JSON body the SDK sends."""
API_KEY = "benchmark-dummy-key"
_ENDPOINT = "/chat/completions"
_OMIT = getattr(openai, "omit", openai.NOT_GIVEN)
"""The SDK's marker for an argument left out of the body (``NOT_GIVEN`` before ``omit``)."""
_CREATE_PARAMETERS = frozenset(
    inspect.signature(openai.resources.chat.completions.Completions.create).parameters
) - {"self", "extra_headers", "extra_query", "extra_body", "timeout"}


class CannotDrive(Exception):
    """A cassette the SDK cannot replay as recorded; the message says why."""


def stock_text(text: str) -> tuple[str, int]:
    """The cassette as stock vcrpy YAML, and how many ``parsed_body`` entries changed.

    With no ``parsed_body`` entry the text is returned unchanged. Otherwise request
    bodies become ``json.dumps`` strings and response bodies ``{"string": ...}``.
    """
    document = yamlserializer.deserialize(text)
    converted = 0
    for item in document.get("interactions") or []:
        request, response = item.get("request") or {}, item.get("response") or {}
        if "parsed_body" in request:
            request["body"] = json.dumps(request.pop("parsed_body"))
            converted += 1
        if "parsed_body" in response:
            response["body"] = {"string": json.dumps(response.pop("parsed_body"))}
            converted += 1
    return (yamlserializer.serialize(document), converted) if converted else (text, 0)


def _json_body(request: Any) -> Any:
    body = request.body
    if body is None:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return body


def _recorded_json_body(live: Any, recorded: Any) -> None:
    """A vcrpy matcher: the JSON values of both bodies are equal."""
    sent, stored = _json_body(live), _json_body(recorded)
    if sent != stored:
        keys = sorted(set(sent) ^ set(stored)) if isinstance(sent, dict) else []
        raise AssertionError(f"the SDK sent another body (keys only on one side: {keys})")


@dataclass(frozen=True)
class Call:
    """One recorded request, ready for ``chat.completions.create``."""

    client: tuple[str, tuple[tuple[str, str], ...]]
    """The base URL and query of the client that sends it."""
    kwargs: Mapping[str, Any]
    """The recorded body split into ``create`` parameters and ``extra_body``."""
    stream: bool


def _call(index: int, request: Mapping[str, Any]) -> Call:
    method, uri = str(request.get("method", "")).upper(), str(request.get("uri", ""))
    if method != "POST":
        raise CannotDrive(f"interaction {index} is a {method} request, not a POST")
    parts = urlsplit(uri)
    if not parts.path.endswith(_ENDPOINT):
        raise CannotDrive(f"interaction {index} goes to {parts.path}, not {_ENDPOINT}")
    body = request.get("body")
    try:
        value = json.loads(body) if isinstance(body, str | bytes) else None
    except ValueError:
        value = None
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        raise CannotDrive(f"interaction {index} has no JSON body with a messages list")
    kwargs = {k: v for k, v in value.items() if k in _CREATE_PARAMETERS}
    extra = {k: v for k, v in value.items() if k not in _CREATE_PARAMETERS}
    if "model" not in kwargs:
        kwargs["model"] = _OMIT  # Azure deployments name the model in the path
    if extra:
        kwargs["extra_body"] = extra
    base = f"{parts.scheme}://{parts.netloc}{parts.path.removesuffix(_ENDPOINT)}"
    query = tuple(parse_qsl(parts.query, keep_blank_values=True))
    return Call(client=(base, query), kwargs=kwargs, stream=value.get("stream") is True)


@dataclass
class PeerRun:
    """What one replay read: stream chunks, parsed completions and caught SDK errors."""

    chunks: int = 0
    completions: int = 0
    http_errors: int = 0
    stream_errors: int = 0


class PeerReplay:
    """One stock cassette and the SDK calls that replay it; clients are built once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        document = yamlserializer.deserialize(path.read_text(encoding="utf-8"))
        items = document.get("interactions") or []
        self.calls = [_call(i, item.get("request") or {}) for i, item in enumerate(items)]
        self.clients = {
            key: openai.OpenAI(
                api_key=API_KEY,
                base_url=key[0],
                default_query=dict(key[1]) or None,
                max_retries=0,
            )
            for key in dict.fromkeys(call.client for call in self.calls)
        }
        self._timed = vcr.VCR(record_mode="none", match_on=MATCH_ON)
        self._checked = vcr.VCR(record_mode="none", match_on=CHECK_ON)
        self._checked.register_matcher("recorded_json_body", _recorded_json_body)

    def run(self, *, check: bool = False) -> PeerRun:
        """Replay every interaction once; ``check`` also compares the bodies the SDK sends
        with the recorded ones. Raises when a request finds no recorded match or an
        interaction is left unplayed."""
        config = self._checked if check else self._timed
        seen = PeerRun()
        with config.use_cassette(str(self.path), allow_playback_repeats=False) as cassette:
            for call in self.calls:
                client = self.clients[call.client]
                try:
                    response = client.chat.completions.create(**call.kwargs)
                    if call.stream:
                        seen.chunks += sum(1 for _chunk in response)
                    else:
                        seen.completions += 1  # create() has parsed the whole body already
                except openai.APIStatusError:
                    seen.http_errors += 1
                except openai.APIConnectionError:
                    raise  # vcrpy found no match: a failure of the replay, not a recorded error
                except openai.APIError:
                    seen.stream_errors += 1
            if not cassette.all_played:
                raise RuntimeError(
                    f"{cassette.play_count} of {len(cassette)} interactions were played"
                )
        return seen

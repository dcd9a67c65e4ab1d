"""The ``hc_proxy`` fixture: the test's cassette served by a recording proxy on
127.0.0.1, for a client in another process or language.

The cassette is opened as ``hc_cassette`` opens it (path, record mode, ``CI``,
volatile paths, secrets, unplayed checks, the offline guard while replaying) but
without vcrpy's patches, and a `CassetteProxy` plays and records it. Its misses are
the cassette's, so they fail the test's call phase with the message an in-process miss
has. The upstream is the origin of the ``hc_proxy`` marker's ``upstream``, else of
``--hc-base-url`` (the ``hc_base_url`` ini key), else of the ``--hc-provider``'s
default base URL: the same in a recording and in its replays. The marker's ``pace``
(``fast`` or ``recorded``) is the pace replayed answers are sent at, and its
``faults`` (``KIND[:ARGS]`` strings or `Fault` objects, their unnamed places drawn
from ``seed``) are served in place of recorded answers while the test replays.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from ._cassette import ACTIVE, open_cassette
from ._settings import option

if TYPE_CHECKING:
    from ..proxy import CassetteProxy

__all__ = ["proxy_for", "upstream_of"]


def upstream_of(item: pytest.Item) -> str:
    """The origin the test's proxy forwards to (see the module documentation)."""
    from ..models import PROVIDERS

    marker = item.get_closest_marker("hc_proxy")
    given = marker.kwargs.get("upstream") if marker is not None else None
    given = given or option(item.config, "hc_base_url")
    if given is None:
        given = PROVIDERS[option(item.config, "hc_provider") or "openai-chat"].base_url
    parts = urlsplit(str(given))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise pytest.UsageError(
            f"{item.nodeid}: the proxy's upstream {given!r} is not an http(s) URL; give one "
            "with @pytest.mark.hc_proxy(upstream=...) or --hc-base-url"
        )
    return f"{parts.scheme}://{parts.netloc}"


def _pace(item: pytest.Item) -> str:
    marker = item.get_closest_marker("hc_proxy")
    pace = marker.kwargs.get("pace", "fast") if marker is not None else "fast"
    if pace not in ("fast", "recorded"):
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.hc_proxy(pace={pace!r}): the pace is 'fast' or 'recorded'"
        )
    return str(pace)


@contextmanager
def proxy_for(item: pytest.Item, path: Path | None) -> Iterator[CassetteProxy]:
    """Run ``item``'s proxy for the duration of the block."""
    from ..proxy import CassetteProxy, faults_for

    if ACTIVE in item.stash:
        raise pytest.UsageError(
            f"{item.nodeid}: hc_proxy serves the test's cassette to other processes and "
            "cannot share it with hc_cassette, hc_model or replay_session in the same test"
        )
    upstream = upstream_of(item)
    marker = item.get_closest_marker("hc_proxy")
    given = marker.kwargs if marker is not None else {}
    with open_cassette(item, path, intercept=False) as cassette:
        try:
            faults = faults_for(given.get("faults", ()), cassette.use, given.get("seed", 0))
        except (TypeError, ValueError) as exc:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.hc_proxy: {exc}") from None
        with CassetteProxy(
            cassette.use, upstream=upstream, pace=_pace(item), faults=faults
        ) as proxy:
            yield proxy

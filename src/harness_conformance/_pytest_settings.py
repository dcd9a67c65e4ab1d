"""Per-test settings of the pytest plugin: options, ini keys and markers combined.

Precedence: a marker on the test, then the command line, then the ini file, then the
default. The record mode is resolved by `harness_conformance.cassettes.resolve_mode`:
``--hc-record-mode`` wins; a marker or ini default is overridden by ``none`` when the
environment variable ``CI`` is set, so CI never records unless the command line asks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ._plugin_paths import cassette_path, collisions

__all__ = [
    "CASSETTE_DIR",
    "block_network_enabled",
    "cassette_dir",
    "check_cassette_paths",
    "invariant_profile",
    "option",
    "unused_allowed",
]

CASSETTE_DIR = "fixtures/cassettes"
_PROFILES = ("off", "seed", "strict")


def option(config: pytest.Config, name: str) -> Any:
    """A ``--hc-*`` value, else its ``hc_*`` ini key, else None."""
    value = config.getoption(name, default=None)
    if value is None:
        value = config.getini(name) or None
    return value


def block_network_enabled(config: pytest.Config) -> bool:
    """``--hc-block-network``, else the ``hc_block_network`` ini key (default false)."""
    if config.getoption("hc_block_network", default=None):
        return True
    return bool(config.getini("hc_block_network"))


def cassette_dir(config: pytest.Config) -> Path:
    raw = option(config, "hc_cassette_dir") or CASSETTE_DIR
    path = Path(raw)
    return path if path.is_absolute() else config.rootpath / path


def invariant_profile(item: pytest.Item) -> str:
    """The profile from ``hc_invariants`` or ``--hc-invariants``; ``off`` needs a reason."""
    marker = item.get_closest_marker("hc_invariants")
    if marker is not None:
        profile = marker.args[0] if marker.args else marker.kwargs.get("profile")
        if profile not in _PROFILES:
            raise pytest.UsageError(
                f"{item.nodeid}: hc_invariants profile {profile!r} is not one of "
                f"{', '.join(_PROFILES)}"
            )
        if profile == "off" and not str(marker.kwargs.get("reason") or "").strip():
            raise pytest.UsageError(
                f"{item.nodeid}: hc_invariants('off') needs reason='...' saying why"
            )
        return str(profile)
    return str(option(item.config, "hc_invariants") or "strict")


def unused_allowed(item: pytest.Item) -> str | None:
    """The reason of ``hc_allow_unused``, if the test carries it (a reason is required)."""
    marker = item.get_closest_marker("hc_allow_unused")
    if marker is None:
        return None
    reason = marker.args[0] if marker.args else marker.kwargs.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise pytest.UsageError(f"{item.nodeid}: hc_allow_unused needs reason='...'")
    return reason


def check_cassette_paths(config: pytest.Config, items: list[pytest.Item]) -> dict[str, Path]:
    """Every cassette-using test's file; two tests mapping to one file implicitly is a
    collection error naming both."""
    directory = cassette_dir(config)
    implicit: list[tuple[str, Path]] = []
    paths: dict[str, Path] = {}
    for item in items:
        if "hc_cassette" not in getattr(item, "fixturenames", ()):
            continue
        marker = item.get_closest_marker("hc_cassette")
        name = marker.kwargs.get("name") if marker else None
        path = cassette_path(item, directory, name)
        paths[item.nodeid] = path
        if name is None:
            implicit.append((item.nodeid, path))
    clashes = collisions(implicit)
    if clashes:
        root = config.rootpath
        lines = [
            f"  {path.relative_to(root) if path.is_relative_to(root) else path}: {', '.join(ids)}"
            for path, ids in clashes.items()
        ]
        raise pytest.UsageError(
            "these tests map to the same cassette file; give them distinct names with "
            "@pytest.mark.hc_cassette(name=...):\n" + "\n".join(lines)
        )
    return paths

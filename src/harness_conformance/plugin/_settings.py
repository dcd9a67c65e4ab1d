"""Per-test settings of the pytest plugin: options, ini keys and markers combined.

Precedence: a marker on the test, then the command line, then the ini file, then the
default. The record mode is resolved by `harness_conformance.cassettes.resolve_mode`:
``--hc-record-mode`` wins; a marker or ini default is overridden by ``none`` when the
environment variable ``CI`` is set, so CI never records unless the command line asks.
List settings (``hc_volatile``, ``hc_secret_env``) add the marker's entries to the ini's.
With the ``hc_vcr_alias`` ini key, pytest-recording's ``vcr`` marker stands for
``hc_cassette``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ._paths import cassette_path, collisions

__all__ = [
    "CASSETTE_DIR",
    "CASSETTE_FILE",
    "KEY_ENV",
    "cassette_dir",
    "cassette_marker",
    "check_cassette_paths",
    "ignored_hosts",
    "invariant_profile",
    "model_hosts",
    "offline_enabled",
    "option",
    "secret_values",
    "unused_allowed",
    "uses_cassette",
    "vcr_alias_enabled",
    "volatile_paths",
]

CASSETTE_DIR = "fixtures/cassettes"
_PROFILES = ("off", "seed", "strict")
_VCR_KEYWORDS = frozenset({"record_mode"})
_IGNORED_KEY = pytest.StashKey[tuple[str, ...]]()
_MODEL_HOSTS_KEY = pytest.StashKey[frozenset[str]]()
CASSETTE_FILE = pytest.StashKey[Path]()
"""A cassette-using test's cassette file, set at collection."""
KEY_ENV = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")
"""The variables whose values are always scrubbed: the keys `hc_model` reads."""


def option(config: pytest.Config, name: str) -> Any:
    """A ``--hc-*`` value, else its ``hc_*`` ini key, else None."""
    value = config.getoption(name, default=None)
    if value is None:
        value = config.getini(name) or None
    return value


def _flag(config: pytest.Config, name: str) -> Any:
    """A command-line value, also before pytest has parsed the whole command line
    (while the first conftest files load)."""
    value = config.getoption(name, default=None)
    if value is None:
        value = getattr(config.known_args_namespace, name, None)
    return value


def offline_enabled(config: pytest.Config) -> bool:
    """Whether the network is closed for the whole run: ``--hc-block-network`` or
    ``--hc-allow-network``, else the ``hc_block_network`` or ``hc_allow_network`` ini
    key, else whether ``CI`` is set. Both options at once is a usage error."""
    from ..offline import is_ci

    block, allow = _flag(config, "hc_block_network"), _flag(config, "hc_allow_network")
    if block and allow:
        raise pytest.UsageError(
            "--hc-block-network and --hc-allow-network contradict each other: give one"
        )
    if block or allow:
        return bool(block)
    if config.getini("hc_block_network"):
        return True
    if config.getini("hc_allow_network"):
        return False
    return is_ci()


def ignored_hosts(config: pytest.Config) -> tuple[str, ...]:
    """``--hc-ignore-host`` values and the ``hc_ignore_hosts`` ini key's lines: hosts
    that carry no model traffic, never recorded and refused quietly when offline."""
    if _IGNORED_KEY not in config.stash:
        given = _flag(config, "hc_ignore_hosts") or []
        hosts = [*config.getini("hc_ignore_hosts"), *given]
        config.stash[_IGNORED_KEY] = tuple(dict.fromkeys(h.strip() for h in hosts if h.strip()))
    return config.stash[_IGNORED_KEY]


def model_hosts(config: pytest.Config) -> frozenset[str]:
    """The hosts of the providers' default base URLs and of the configured one."""
    from urllib.parse import urlsplit

    from ..models import PROVIDERS

    if _MODEL_HOSTS_KEY not in config.stash:
        urls = [provider.base_url for provider in PROVIDERS.values()]
        configured = option(config, "hc_base_url")
        if configured:
            urls.append(str(configured))
        hosts = frozenset(host for url in urls if (host := urlsplit(url).hostname))
        config.stash[_MODEL_HOSTS_KEY] = hosts
    return config.stash[_MODEL_HOSTS_KEY]


def vcr_alias_enabled(config: pytest.Config) -> bool:
    """The ``hc_vcr_alias`` ini key: ``@pytest.mark.vcr`` then works as ``hc_cassette``."""
    return bool(config.getini("hc_vcr_alias"))


def cassette_marker(item: pytest.Item) -> pytest.Mark | None:
    """The closest ``hc_cassette`` marker, else, with ``hc_vcr_alias``, the closest
    ``vcr`` marker; a ``vcr`` marker with arguments ``hc_cassette`` has no counterpart
    for is a usage error naming them."""
    marker = item.get_closest_marker("hc_cassette")
    if marker is not None or not vcr_alias_enabled(item.config):
        return marker
    marker = item.get_closest_marker("vcr")
    if marker is None:
        return None
    unsupported = [repr(arg) for arg in marker.args]
    unsupported += [f"{key}=" for key in sorted(set(marker.kwargs) - _VCR_KEYWORDS)]
    if unsupported:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.vcr under hc_vcr_alias takes only record_mode=...; "
            f"drop {', '.join(unsupported)} (name a shared cassette with "
            "@pytest.mark.hc_cassette(name=...), adjust the VCR in the pytest_hc_configure_vcr "
            "hook)"
        )
    return marker


def uses_cassette(item: pytest.Item) -> bool:
    """Whether ``item`` runs under a cassette: it requests ``hc_cassette``, ``hc_chaos``
    or ``hc_proxy`` (or a fixture built on them) or carries the ``hc_cassette`` marker
    (``vcr`` with ``hc_vcr_alias``) or the ``hc_chaos`` marker."""
    fixtures = getattr(item, "fixturenames", ())
    if {"hc_cassette", "hc_chaos", "hc_proxy"} & set(fixtures):
        return True
    if item.get_closest_marker("hc_chaos") is not None:
        return True
    return cassette_marker(item) is not None


def _listed(item: pytest.Item, ini: str, keyword: str) -> list[str]:
    """The ``ini`` line list, then the marker's ``keyword`` list; anything but a list of
    non-empty strings in the marker is a usage error."""
    values = [str(line).strip() for line in item.config.getini(ini) if str(line).strip()]
    marker = cassette_marker(item)
    given = marker.kwargs.get(keyword, ()) if marker is not None else ()
    if isinstance(given, str) or not all(isinstance(v, str) and v.strip() for v in given):
        raise pytest.UsageError(
            f"{item.nodeid}: hc_cassette({keyword}=...) takes a list of non-empty strings, "
            f"not {given!r}"
        )
    return values + [v.strip() for v in given]


def volatile_paths(item: pytest.Item) -> tuple[str, ...]:
    """The request-body paths left out of matching: the ``hc_volatile`` ini key, then
    ``hc_cassette(volatile=[...])``; a path that does not parse is a usage error."""
    from ..cassettes import parse_volatile_path

    paths = _listed(item, "hc_volatile", "volatile")
    for path in paths:
        try:
            parse_volatile_path(path)
        except ValueError as exc:
            raise pytest.UsageError(f"{item.nodeid}: hc_volatile / volatile=: {exc}") from None
    return tuple(paths)


def secret_values(item: pytest.Item) -> tuple[str, ...]:
    """The values of the environment variables holding live secrets: `KEY_ENV`, the
    ``hc_secret_env`` ini key and ``hc_cassette(secret_env=[...])``; unset ones are
    skipped. Recording replaces each value in the cassette."""
    names = dict.fromkeys([*KEY_ENV, *_listed(item, "hc_secret_env", "secret_env")])
    return tuple(value for name in names if (value := os.environ.get(name, "").strip()))


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
    """Every cassette-using test's file, by test id, also kept in the test's stash under
    `CASSETTE_FILE` (where it stays when pytest-xdist's ``loadgroup`` renames the test);
    two tests mapping to one file implicitly is a collection error naming both."""
    directory = cassette_dir(config)
    implicit: list[tuple[str, Path]] = []
    paths: dict[str, Path] = {}
    for item in items:
        if not uses_cassette(item):
            continue
        marker = cassette_marker(item)
        name = marker.kwargs.get("name") if marker else None
        path = cassette_path(item, directory, name, secret_values(item))
        volatile_paths(item)  # bad paths and arguments fail at collection
        paths[item.nodeid] = path
        item.stash[CASSETTE_FILE] = path
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

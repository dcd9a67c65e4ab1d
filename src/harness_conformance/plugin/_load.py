"""The pytest plugins the harness-conformance plugin works with, loaded beside it.

Async tests run under anyio's pytest plugin (``@pytest.mark.anyio``) and snapshots come
from syrupy's. Installed packages register both through their entry points; when
``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` (or ``--disable-plugin-autoload``) turns that off,
``-p harness_conformance`` alone would leave async tests unrun and the ``snapshot``
fixture missing. :func:`load_companions` registers them the way ``-p anyio -p syrupy``
would: under their entry point names, so a later entry point scan skips them, and never
one that ``-p no:NAME`` blocks. syrupy is a test extra: when it is not installed it is
left out.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import pytest

__all__ = ["COMPANIONS", "load_companions"]

COMPANIONS = (("anyio", "anyio.pytest_plugin"), ("syrupy", "syrupy"))
"""Each companion plugin: its ``pytest11`` entry point name and the module it loads."""


def load_companions(pluginmanager: pytest.PytestPluginManager) -> list[str]:
    """Register the companion plugins not registered or blocked yet; returns their names."""
    loaded = []
    for name, module in COMPANIONS:
        if pluginmanager.is_blocked(name) or pluginmanager.has_plugin(name):
            continue
        if any(pluginmanager.is_registered(p) for p in _imported(module)):
            continue  # registered under another name, e.g. by ``-p anyio.pytest_plugin``
        if importlib.util.find_spec(module.partition(".")[0]) is None:
            continue
        # By entry point, as autoload and ``-p NAME`` do; without one, the module itself.
        if not pluginmanager.load_setuptools_entrypoints("pytest11", name=name):
            pluginmanager.register(importlib.import_module(module), name)
        loaded.append(name)
    return loaded


def _imported(module: str) -> list[object]:
    found = sys.modules.get(module)
    return [] if found is None else [found]

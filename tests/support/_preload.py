"""Modules the suite's pytester projects import, imported once per test process.

pytester's in-process runs restore ``sys.modules`` afterwards, so a module first
imported inside a run is imported again, assertion rewriting included, by every later
run of that process. `preload` imports them up front so every run finds them.
"""

from __future__ import annotations

import importlib
import pkgutil

import harness_conformance

COMPANIONS = (
    "_pytest.stepwise",
    "hypothesis.internal.conjecture.optimiser",
    "jsonschema",
    "syrupy",
    "syrupy.extensions.amber",
    "syrupy.extensions.single_file",
    "vcr",
)
"""Modules outside this package that the projects' runs import."""


def preload() -> None:
    """Import every module of the package (bar ``__main__``, which runs the command
    line) and `COMPANIONS`."""
    for module in pkgutil.walk_packages(harness_conformance.__path__, "harness_conformance."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    for name in COMPANIONS:
        importlib.import_module(name)

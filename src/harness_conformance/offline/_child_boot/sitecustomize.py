"""Run by Python at start-up in a child process of a test under ``--hc-block-network``.

The plugin puts this folder first on the child's ``PYTHONPATH`` while a guarded test
phase runs. When ``HARNESS_CONFORMANCE_CHILD_GUARD`` is set, the offline guard is put
in force for the whole process (`harness_conformance.offline.guard_this_process`); a
Python that cannot import harness_conformance says so in the phase's report folder, so
the test is warned that the child ran unguarded. Then the ``sitecustomize`` this one
shadows, if there is one further along ``sys.path``, runs as it would have.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import sys

_SETTINGS = os.environ.get("HARNESS_CONFORMANCE_CHILD_GUARD")


def _unguarded(problem: BaseException) -> None:
    try:
        folder = json.loads(_SETTINGS or "{}")["report"]
        line = {"pid": os.getpid(), "argv": sys.orig_argv, "unguarded": repr(problem)}
        with open(os.path.join(folder, f"{os.getpid()}.jsonl"), "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
    except (OSError, ValueError, KeyError, TypeError):
        pass  # the report folder is gone: the phase that made it has ended


if _SETTINGS:
    try:
        from harness_conformance.offline import guard_this_process
    except Exception as exc:  # this Python cannot import harness_conformance
        _unguarded(exc)
    else:
        guard_this_process()


def _shadowed() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)


_shadowed()

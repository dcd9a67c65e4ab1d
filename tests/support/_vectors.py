"""Format 2 vector documents for tests that write small vector files.

`declared` gives a test's document the version and the declarations its entries hold,
derived by the rewrite script (``scripts/rewrite-vectors-2.py``), so a test states only
what it is about. A document the script cannot read (one a test makes malformed on
purpose) gets the version and an empty ``requires``: the loader's shape check, which
runs before the declarations are compared, then reports what the test planted.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from _scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "rewrite-vectors-2.py"


@cache
def rewrite_script() -> ModuleType:
    """The rewrite script, imported as a module."""
    return load_script(SCRIPT)


def declared(kind: str, data: Any) -> Any:
    """``data`` (a vector document of ``kind``: schema, invariants, errors, wire,
    expected) in format 2; anything but an object as it is."""
    if not isinstance(data, dict) or data.get("vectors") == 2:
        return data
    script = rewrite_script()
    build = {**script.KINDS, "expected": script.expected_file}[kind]
    try:
        out = build(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        out = {"vectors": 2, **data, "requires": data.get("requires", [])}
    out["vectors"] = 2
    return out

"""The vcrpy patcher groups that have nothing to patch in this process.

vcrpy builds a cassette's HTTP patches one client library at a time, and the group of a
library that is not installed tries to import it again for every cassette. A failed
import searches every folder on ``sys.path``, which costs a replayed test more than the
rest of opening its cassette. `absent_patch_groups` names the groups none of whose
libraries can be imported, and `use_cassette` hands them to vcrpy as ``skip_patchers``.

The answer is kept while ``sys.path`` and ``sys.meta_path`` stay the same. A library
found in ``sys.modules`` always counts as present, so one imported after the answer was
kept is patched again from the next cassette on.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Mapping

__all__ = ["PATCH_GROUP_LIBRARIES", "absent_patch_groups", "forget_absent_patch_groups"]

PATCH_GROUP_LIBRARIES: Mapping[str, tuple[str, ...]] = {
    "boto3": ("botocore",),
    "httplib2": ("httplib2",),
    "tornado": ("tornado",),
    "aiohttp": ("aiohttp",),
    "httpx": ("httpx", "httpx_curl_cffi", "pyreqwest"),
}
"""Each vcrpy patcher group that imports optional libraries, and the top-level packages
its patches need: the group has nothing to patch when none of them can be imported.
(``httplib`` is the standard library's; ``requests`` and ``urllib3`` patch urllib3,
which the ``openai`` SDK's dependencies install; ``httpx2`` is the SDK's own client.)"""

_kept: tuple[tuple[object, ...], frozenset[str]] | None = None


def _importable(name: str) -> bool:
    if sys.modules.get(name) is not None:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def absent_patch_groups() -> frozenset[str]:
    """The patcher groups of `PATCH_GROUP_LIBRARIES` none of whose libraries can be
    imported now."""
    global _kept
    key = (*sys.path, None, *sys.meta_path)
    if _kept is None or _kept[0] != key:
        absent = frozenset(
            group
            for group, libraries in PATCH_GROUP_LIBRARIES.items()
            if not any(_importable(name) for name in libraries)
        )
        _kept = (key, absent)
    return frozenset(
        group
        for group in _kept[1]
        if not any(sys.modules.get(name) is not None for name in PATCH_GROUP_LIBRARIES[group])
    )


def forget_absent_patch_groups() -> None:
    """Look for the libraries again at the next `absent_patch_groups` (after installing
    one into a folder already on ``sys.path``, say)."""
    global _kept
    _kept = None

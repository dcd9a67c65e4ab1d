"""Where a test's cassette lives: ``<cassette dir>/<test module>/<test name>.yaml``.

A name from the ``hc_cassette`` marker replaces the test name; a name with ``/`` in it
is a path under the cassette dir instead (``shared/weather`` is
``<cassette dir>/shared/weather.yaml``), so tests in several modules can share it.

Every part of the path is made safe to write before it is used, the same way under
record and replay, by `harness_conformance.cassettes._names.safe_part`: no unsafe
character, no declared secret or key-shaped token, at most 120 bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

__all__ = ["cassette_path", "collisions"]


def cassette_path(
    item: pytest.Item,
    directory: Path,
    name: str | None = None,
    secrets: Iterable[str] = (),
) -> Path:
    """The cassette file of ``item``; ``name`` (from the ``hc_cassette`` marker) replaces
    the test-name part, or, with a ``/``, is the path under ``directory``. A name that is
    empty or climbs out of ``directory`` is a usage error. Each part is a `safe_part`
    without the declared ``secrets``."""
    from ..cassettes import safe_part  # the cassettes part loads only when used

    if name is not None:
        if not isinstance(name, str) or not name.strip("/ ."):
            raise pytest.UsageError(
                f"{item.nodeid}: hc_cassette(name=...) needs a non-empty name, not {name!r}"
            )
        if "/" in name:
            parts = [part for part in name.split("/") if part]
            if name.startswith("/") or ".." in parts:
                raise pytest.UsageError(
                    f"{item.nodeid}: hc_cassette(name={name!r}) must be a path relative to "
                    "the cassette dir, without '..'"
                )
            *folders, last = (safe_part(part, secrets) for part in parts)
            return directory.joinpath(*folders, f"{last}.yaml")
    module = Path(str(getattr(item, "path", "") or item.nodeid.split("::")[0])).stem
    if name is None:
        parts = item.nodeid.split("::")[1:]
        name = ".".join(parts) or item.name
    return directory / safe_part(module, secrets) / f"{safe_part(name, secrets)}.yaml"


def collisions(mapping: Iterable[tuple[str, Path]]) -> dict[Path, list[str]]:
    """Files that more than one test maps to (by implicit naming), with the test ids."""
    seen: dict[Path, list[str]] = {}
    for nodeid, path in mapping:
        seen.setdefault(path, []).append(nodeid)
    return {path: ids for path, ids in seen.items() if len(ids) > 1}

"""Where a test's cassette lives: ``<cassette dir>/<test module>/<test name>.yaml``.

A name from the ``hc_cassette`` marker replaces the test name; a name with ``/`` in it
is a path under the cassette dir instead (``shared/weather`` is
``<cassette dir>/shared/weather.yaml``), so tests in several modules can share it.

Every part of the path is made safe to write before it is used, the same way under
record and replay: characters unsafe on common file systems become ``_``; a declared
secret or a key-shaped token (a parametrize id holding an API key) is replaced with
``redacted``, so no key reaches a file name; and a part longer than `MAX_NAME_BYTES`
bytes of UTF-8 keeps its beginning and ends with a hash of the whole part
(``<first 80 bytes>-<12 hex digits>``), so long test ids stay distinct and fit every
file system's limit of 255 bytes per name, with room for the temporary file a save
writes first.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

__all__ = ["MAX_NAME_BYTES", "cassette_path", "collisions", "safe_part", "sanitize"]

MAX_NAME_BYTES = 120
"""The longest file or folder name a cassette path part may have, in UTF-8 bytes, before
the ``.yaml`` suffix; a longer one is shortened with a hash."""
_KEPT_BYTES = 80

_UNSAFE = re.compile(r'[\x00-\x1f<>:"/\\|?*]+')


def sanitize(name: str) -> str:
    """A file name from a test name: characters unsafe on common file systems become ``_``."""
    cleaned = _UNSAFE.sub("_", name).strip(" .")
    return cleaned or "_"


def _without_secrets(part: str, secrets: Iterable[str]) -> str:
    from ..cassettes._secrets import find_secrets

    findings = find_secrets(part, tuple(secrets))
    for found in sorted(findings, key=lambda f: f.column, reverse=True):
        start = found.column - 1
        part = part[:start] + "redacted" + part[start + found.length :]
    if findings and find_secrets(part, tuple(secrets)):
        return "redacted"  # a token found where its span cannot be cut out: drop it all
    return part


def _shortened(part: str) -> str:
    data = part.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_NAME_BYTES:
        return part
    digest = hashlib.sha256(data).hexdigest()[:12]
    head = data[:_KEPT_BYTES].decode("utf-8", "ignore").rstrip(" .")
    return f"{head}-{digest}"


def safe_part(name: str, secrets: Iterable[str] = ()) -> str:
    """``name`` as one part of a cassette path: `sanitize`d, with every declared secret
    in ``secrets`` and key-shaped token replaced with ``redacted``, and shortened with a
    hash past `MAX_NAME_BYTES` bytes."""
    return _shortened(_without_secrets(sanitize(name), secrets))


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

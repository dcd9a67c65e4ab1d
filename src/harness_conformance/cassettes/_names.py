"""File names made from test ids, for cassettes and snapshots.

A test id can hold anything a parametrize id holds, an API key included. `safe_part`
turns one into a name that is safe to write, the same way every time: characters unsafe
on common file systems become ``_``; a declared secret or a key-shaped token is
replaced with ``redacted``, so no key reaches a file name; and a name longer than
`MAX_NAME_BYTES` bytes of UTF-8 keeps its beginning and ends with a hash of the whole
name (``<first 80 bytes>-<12 hex digits>``), so long test ids stay distinct and fit
every file system's limit of 255 bytes per name, with room for a suffix and for the
temporary file a save writes first.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from ..errors import CassetteError
from ..redaction import Secret
from ._secrets import describe_findings, find_secrets

__all__ = ["MAX_NAME_BYTES", "refuse_secret_name", "safe_part", "sanitize"]

MAX_NAME_BYTES = 120
"""The longest file or folder name a cassette path part may have, in UTF-8 bytes, before
the ``.yaml`` suffix; a longer one is shortened with a hash."""
_KEPT_BYTES = 80
_HASH_DIGITS = 12

_UNSAFE = re.compile(r'[\x00-\x1f<>:"/\\|?*]+')


def sanitize(name: str) -> str:
    """A file name from a test name: characters unsafe on common file systems become ``_``."""
    cleaned = _UNSAFE.sub("_", name).strip(" .")
    return cleaned or "_"


def _without_secrets(part: str, secrets: Iterable[str | Secret]) -> str:
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
    digest = hashlib.sha256(data).hexdigest()[:_HASH_DIGITS]
    head = data[:_KEPT_BYTES].decode("utf-8", "ignore").rstrip(" .")
    return f"{head}-{digest}"


def safe_part(name: str, secrets: Iterable[str | Secret] = ()) -> str:
    """``name`` as one part of a cassette path: `sanitize`d, with every declared secret
    in ``secrets`` and key-shaped token replaced with ``redacted``, and shortened with a
    hash past `MAX_NAME_BYTES` bytes."""
    return _shortened(_without_secrets(sanitize(name), secrets))


def refuse_secret_name(name: str, secrets: Iterable[str | Secret] = (), *, what: str) -> None:
    """Raise ``CassetteError(code="CASSETTE_SECRET")`` when ``name``, the file name of a
    ``what`` (``snapshot``), holds a declared secret or a key-shaped token; the message
    shows the name with each one replaced."""
    findings = find_secrets(name, tuple(secrets))
    if not findings:
        return
    shown = _without_secrets(name, secrets)
    raise CassetteError(
        f"refusing to write or read the {what} {shown!r}: the test id puts a key into its "
        f"file name ({describe_findings(findings)}). Nothing was written. Give the test "
        "case an id without the key (pytest.param(..., id=...) or ids=...).",
        code="CASSETTE_SECRET",
    )

"""One cassette checked for the ``replay`` command: scanned for secrets, then replayed.

Every cassette, this library's own format and stock vcrpy ones alike, goes through
`replay_foreign`. Before that its text is scanned with the cassette secret scanner: a
cassette that still holds a credential fails with ``CASSETTE_SECRET`` and is not
replayed. A cassette that does not load is an error result; the run goes on with the
next.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from ..errors import CassetteError
from ._output import plural
from ._report import InputFile, unreadable

if TYPE_CHECKING:
    import yaml

    from ..cassettes.foreign import ForeignReplay

__all__ = ["CassetteResult", "acheck_cassette", "check_cassette"]


@dataclass(frozen=True)
class CassetteResult:
    """What checking one cassette gave: a replay, or the error that stopped it."""

    file: InputFile
    replay: ForeignReplay | None
    error: CassetteError | None = None

    def unplayed(self) -> list[tuple[int, tuple[int, ...]]]:
        """(1-based session number, interactions never played) of each lagging session."""
        if self.replay is None:
            return []
        return [(n, s.unplayed) for n, s in enumerate(self.replay.sessions, 1) if s.unplayed]

    def failed(self, fail_on_invalid_args: bool) -> bool:
        if self.replay is None:
            return True
        return bool(
            self.replay.violations
            or self.unplayed()
            or (
                fail_on_invalid_args
                and (self.replay.invalid_tool_calls or self.replay.unchecked_tool_calls)
            )
        )

    def result(self, fail_on_invalid_args: bool) -> str:
        if self.error is not None:
            return f"ERROR {self.error.code}"
        return "FAIL" if self.failed(fail_on_invalid_args) else "ok"


# -- checking ----------------------------------------------------------------------------


def _secret_error(path: Path) -> CassetteError | None:
    """A ``CASSETTE_SECRET`` error when the file still holds a credential-looking token.

    The message says where each token is and what it looks like, never its value.
    """
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        return CassetteError(
            f"cannot read cassette {path}: {exc.strerror}; check the file's permissions",
            code="CASSETTE_MISSING",
            path=str(path),
        )
    return _secrets_in(path, text)


def _secrets_in(
    path: Path, text: str, tree: Callable[[], yaml.Node | None] | None = None
) -> CassetteError | None:
    """`_secret_error` of a text already read (and composed, when ``tree`` is given)."""
    from ..cassettes import REDACTED, describe_findings, find_secrets

    findings = find_secrets(text, tree=tree)
    if not findings:
        return None
    return CassetteError(
        f"cassette {path} holds {plural(len(findings), 'secret-looking token')}: "
        f"{describe_findings(findings)}. It was not replayed. Scrub it (replace each value with "
        f"{REDACTED}, or delete the credential header) or re-record it with "
        "make_vcr(secrets=[key]); if a key is real, revoke it, since it has been on disk.",
        code="CASSETTE_SECRET",
        path=str(path),
    )


def check_cassette(file: InputFile, profile: str) -> CassetteResult:
    """Scan one cassette for secrets, then replay it; a `CassetteError` becomes the result."""
    box: list[CassetteResult] = []

    async def run() -> None:
        box.append(await acheck_cassette(file, profile))

    anyio.run(run)
    return box[0]


async def acheck_cassette(file: InputFile, profile: str) -> CassetteResult:
    """`check_cassette` inside a running event loop, so that a run over many cassettes
    starts one loop, not one per cassette.

    The secret scan sees the text and the node tree the replay's loader read, before
    anything is built from them, so the file is read and composed once. A file that does
    not load that far is scanned as text, and a secret in it is reported before the
    reason it does not load."""
    from ..cassettes.foreign import areplay_foreign

    if file.problem is not None:
        error = CassetteError(file.problem, code="CASSETTE_MISSING", path=str(file.path))
        return CassetteResult(file, None, error)
    screened: list[bool] = []

    def screen(text: str, tree: Callable[[], yaml.Node | None] | None) -> None:
        screened.append(True)
        secret = _secrets_in(file.path, text, tree)
        if secret is not None:
            raise secret

    try:
        return CassetteResult(
            file, await areplay_foreign(file.path, profile=profile, screen=screen)
        )
    except CassetteError as exc:
        error = exc
    except Exception as exc:  # the last line of defence: one file never ends the run
        message = unreadable(file.path, exc)
        error = CassetteError(message, code="CASSETTE_CORRUPT", path=str(file.path))
    if not screened:
        error = _secret_error(file.path) or error
    return CassetteResult(file, None, error)

"""A kind of conformance vector as a description, and the loader and runner of every kind.

A `VectorKind` describes its vectors: the folder they live in, the meta-schema their
files satisfy, the requirement words their declarations may use and what each entry
holds, how a vector is built from its checked document, its checks, how a check runs,
and its known gaps. `VectorKind.load` reads every vector of a folder the same way for
every kind: the document is checked against the meta-schema (`read_checked`), its
declarations against what its entries hold (`file_problems`), then the kind builds the
vector; every problem of a file is reported at once in one `VectorFileError`.

Every check has an id: ``<vector id>/<description slug>`` for a case or a refusal,
``<vector id>/json_schema`` for a schema file's compiled schema, ``<vector id>/events``
and ``<vector id>/outcome`` for the two parts of a replay vector. The known gaps of a
kind are one immutable table from check id to the reason this library knowingly
answers differently, citing the RFC that records the decision. `VectorKind.run_vector`
reports a check the table names as skipped with that reason, never run, never failed
and never edited out of the data; the test suite runs the same check as a strict xfail,
so a gap that closes fails the run. A check that cannot run in this installation (its
compare raises `NotRunHere`) is skipped with the reason too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Generic, Protocol, TypeVar

from ._declared import Entry, file_problems
from ._files import VectorFailure, VectorFileError
from ._meta import MetaSchema, read_checked, shipped_vectors

__all__ = ["Difference", "NotRunHere", "VectorKind", "VectorRun"]

Difference = tuple[str, Any, Any]
"""One difference a check found: what differs (a case description, ``events[3]``, an
outcome field), what the vector expects and what this library gave."""


class NotRunHere(Exception):
    """Raised by a kind's compare when a check cannot run in this installation; the
    message is the reason the check is skipped."""


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


class _Check(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def description(self) -> str: ...


VectorT = TypeVar("VectorT", bound=_Identified)
CheckT = TypeVar("CheckT", bound=_Check)


@dataclass(frozen=True, kw_only=True)
class VectorRun:
    """What running one vector found."""

    checks: int
    """How many checks the vector makes."""
    failed: int
    """How many of them disagree with this library."""
    skipped: int
    """How many were skipped (a known gap, or not runnable here)."""
    failures: tuple[VectorFailure, ...]
    """Each difference and each skipped check, in check order."""


@dataclass(frozen=True, kw_only=True)
class VectorKind(Generic[VectorT, CheckT]):
    """One kind of conformance vector: what its files are and how its checks run."""

    name: str
    """The kind's folder under ``conformance/``, e.g. ``schema``."""
    meta_schema: str
    """The file name of the kind's meta-schema in ``conformance/meta/``."""
    words: Mapping[str, Iterable[str]]
    """The requirement words of the open kinds (``rule``, ``profile``, ``wire``...)
    this kind's declarations may use; an empty set closes a kind to them."""
    holds: Callable[[Mapping[str, Any]], list[Entry]]
    """What each entry of a checked document holds, for its declaration to match."""
    build: Callable[[Path, dict[str, Any], list[str], MetaSchema], VectorT]
    """The vector of a source (a file, or a folder), given its checked document; adds
    each problem it finds to the list (or raises `VectorFileError` for another file)."""
    checks: Callable[[VectorT], Sequence[CheckT]]
    """The checks of a vector, in the order they run."""
    expected: Callable[[CheckT], Any]
    """What the vector expects of a check, as a `VectorFailure` reports it."""
    compare: Callable[[CheckT], list[Difference]]
    """Run a check: every difference from what the vector expects, empty when this
    library agrees."""
    gaps: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The known gaps: check id to the reason, citing the RFC that records it."""
    files: tuple[str, ...] = ()
    """For a kind whose vectors are folders, the files each must hold, its document
    (the one with the declarations) last; empty when each vector is a ``*.json`` file."""

    def sources(self, directory: str | Path) -> list[Path]:
        """The vector files (or folders) of ``directory``, sorted by name; raises
        `VectorFileError` when ``directory`` is not a directory."""
        folder = Path(directory)
        if not folder.is_dir():
            raise VectorFileError(folder, ["is not a directory"])
        if not self.files:
            return sorted(folder.glob("*.json"))
        return sorted(
            sub for sub in folder.iterdir() if sub.is_dir() and not sub.name.startswith((".", "_"))
        )

    def load(
        self, directory: str | Path, *, meta_schema: str | Path | None = None
    ) -> list[VectorT]:
        """Every vector of ``directory``, sorted by name, checked against ``meta_schema``
        (default: the kind's meta-schema this package ships). Raises `VectorFileError`
        naming the file and the JSON path of every problem."""
        sources = self.sources(directory)
        if meta_schema is None:
            shipped = shipped_vectors()
            if shipped is None:
                raise VectorFileError(
                    Path(directory),
                    ["this installation ships no meta-schemas: pass the meta_schema to use"],
                )
            meta_schema = shipped / "meta" / self.meta_schema
        meta = MetaSchema(Path(meta_schema))
        return [self._read(source, meta) for source in sources]

    def _read(self, source: Path, meta: MetaSchema) -> VectorT:
        missing = [name for name in self.files if not (source / name).is_file()]
        if missing:
            raise VectorFileError(source, [f"missing {name}" for name in missing])
        document = source / self.files[-1] if self.files else source
        data = read_checked(document, meta)
        problems = file_problems(data, self.holds(data), self.words)
        vector = self.build(source, data, problems, meta)
        if problems:
            raise VectorFileError(document, problems)
        return vector

    def run_vector(self, vector: VectorT) -> VectorRun:
        """Run every check of ``vector``: each difference and each skipped check."""
        checks = self.checks(vector)
        failures: list[VectorFailure] = []
        failed = skipped = 0
        for check in checks:
            reason = self.gaps.get(check.id)
            differences: list[Difference] = []
            if reason is None:
                try:
                    differences = self.compare(check)
                except NotRunHere as exc:
                    reason = str(exc)
            if reason is not None:
                skipped += 1
                failures.append(
                    VectorFailure(
                        vector_id=vector.id,
                        case=check.description,
                        expected=self.expected(check),
                        actual=None,
                        skipped=reason,
                    )
                )
                continue
            failed += bool(differences)
            failures += [
                VectorFailure(vector_id=vector.id, case=case, expected=expected, actual=actual)
                for case, expected, actual in differences
            ]
        return VectorRun(
            checks=len(checks), failed=failed, skipped=skipped, failures=tuple(failures)
        )

    def run(self, vectors: str | Path | Iterable[VectorT]) -> list[VectorFailure]:
        """Every difference between the vectors (or those of a directory) and this
        library, plus one entry per skipped check; empty for full conformance."""
        if isinstance(vectors, (str, Path)):
            vectors = self.load(vectors)
        return [failure for vector in vectors for failure in self.run_vector(vector).failures]

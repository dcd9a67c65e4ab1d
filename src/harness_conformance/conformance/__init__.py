"""Load and run the language-neutral conformance vectors of ``conformance/``.

There are five kinds of vectors, each a `VectorKind`: `SCHEMA_VECTORS`,
`INVARIANT_VECTORS`, `REPLAY_VECTORS`, `ERROR_VECTORS` and `WIRE_VECTORS`
(`VECTOR_KINDS` names them by folder, in the order they run). A kind describes its
vectors (the meta-schema their files satisfy, what their entries require, how each
check runs) and its known gaps; one loader and one runner serve every kind::

    vectors = WIRE_VECTORS.load("conformance/wire")
    failures = WIRE_VECTORS.run(vectors)  # [] for full conformance

`VectorKind.load` checks every file against its meta-schema with python-jsonschema and
raises `VectorFileError` naming the file and the JSON path of every problem.
`VectorKind.run` lists every `VectorFailure`: a check this library disagrees with, or
one skipped with its reason. A known gap is an entry of the kind's immutable ``gaps``
table, entry id to the reason (citing the RFC that records it): such a check is
reported skipped, never failed, and the data stays as it is.
"""

from ._errors import ERROR_VECTORS, ErrorCase, run_error_case
from ._files import VectorFailure, VectorFileError, same_json, slug
from ._invariants import INVARIANT_VECTORS, InvariantCase, run_invariant_case
from ._kinds import VECTOR_KINDS
from ._meta import PACKAGED_FOLDER, shipped_vectors
from ._replay import (
    REPLAY_VECTORS,
    ReplayVector,
    replay_cassette,
    replay_outcome,
)
from ._schema import (
    SCHEMA_VECTORS,
    SchemaCase,
    SchemaRefusal,
    SchemaVector,
    refusal_outcome,
)
from ._vector_kind import VectorKind
from ._wire import WIRE_VECTORS, WireCase, run_wire_case

__all__ = [
    "ERROR_VECTORS",
    "INVARIANT_VECTORS",
    "PACKAGED_FOLDER",
    "REPLAY_VECTORS",
    "SCHEMA_VECTORS",
    "VECTOR_KINDS",
    "WIRE_VECTORS",
    "ErrorCase",
    "InvariantCase",
    "ReplayVector",
    "SchemaCase",
    "SchemaRefusal",
    "SchemaVector",
    "VectorFailure",
    "VectorFileError",
    "VectorKind",
    "WireCase",
    "clear_caches",
    "refusal_outcome",
    "replay_cassette",
    "replay_outcome",
    "run_error_case",
    "run_invariant_case",
    "run_wire_case",
    "same_json",
    "shipped_vectors",
    "slug",
]


def clear_caches() -> None:
    """Empty the caches of this part: the replays of vector cassettes, one per cassette
    and fault."""
    from ._replay import clear_replay_outcomes

    clear_replay_outcomes()

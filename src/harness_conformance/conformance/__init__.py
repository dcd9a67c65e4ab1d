"""Load and run the language-neutral conformance vectors of ``conformance/``.

There are five kinds, each with a loader and a runner: schema vectors
(`load_schema_vectors`, `run_schema_vectors`), invariant vectors
(`load_invariant_vectors`, `run_invariant_vectors`), replay vectors
(`load_replay_vectors`, `run_replay_vectors`), error vectors
(`load_error_vectors`, `run_error_vectors`) and wire vectors
(`load_wire_vectors`, `run_wire_vectors`); this package names them all.

Each kind has its known gaps: predicates that claim a case this
library knowingly disagrees with and return the reason, so the case is skipped, never
failed and never edited out of the data.
"""

from ._errors import (
    ERROR_KNOWN_GAPS,
    ErrorCase,
    ErrorVector,
    error_known_gap,
    load_error_vectors,
    run_error_case,
    run_error_vectors,
)
from ._files import (
    VectorFailure,
    VectorFileError,
    same_json,
    slug,
)
from ._invariants import (
    INVARIANT_KNOWN_GAPS,
    InvariantCase,
    InvariantVector,
    invariant_known_gap,
    load_invariant_vectors,
    run_invariant_case,
    run_invariant_vectors,
)
from ._refusals import (
    SchemaRefusal,
    refusal_outcome,
)
from ._replay import (
    REPLAY_KNOWN_GAPS,
    ReplayOutcome,
    ReplayVector,
    load_replay_vectors,
    replay_cassette,
    replay_known_gap,
    replay_outcome,
    run_replay_vector,
    run_replay_vectors,
)
from ._schema import (
    KNOWN_GAPS,
    META_SCHEMA_NAME,
    SchemaCase,
    SchemaFailure,
    SchemaVector,
    known_gap,
    load_schema_vectors,
    run_schema_vectors,
)
from ._wire import (
    WIRE_KNOWN_GAPS,
    WireCase,
    WireVector,
    load_wire_vectors,
    run_wire_case,
    run_wire_vectors,
    wire_known_gap,
)

__all__ = [
    "ERROR_KNOWN_GAPS",
    "INVARIANT_KNOWN_GAPS",
    "KNOWN_GAPS",
    "META_SCHEMA_NAME",
    "REPLAY_KNOWN_GAPS",
    "WIRE_KNOWN_GAPS",
    "ErrorCase",
    "ErrorVector",
    "InvariantCase",
    "InvariantVector",
    "ReplayOutcome",
    "ReplayVector",
    "SchemaCase",
    "SchemaFailure",
    "SchemaRefusal",
    "SchemaVector",
    "VectorFailure",
    "VectorFileError",
    "WireCase",
    "WireVector",
    "error_known_gap",
    "invariant_known_gap",
    "known_gap",
    "load_error_vectors",
    "load_invariant_vectors",
    "load_replay_vectors",
    "load_schema_vectors",
    "load_wire_vectors",
    "refusal_outcome",
    "replay_cassette",
    "replay_known_gap",
    "replay_outcome",
    "run_error_case",
    "run_error_vectors",
    "run_invariant_case",
    "run_invariant_vectors",
    "run_replay_vector",
    "run_replay_vectors",
    "run_schema_vectors",
    "run_wire_case",
    "run_wire_vectors",
    "same_json",
    "slug",
    "wire_known_gap",
]

"""Fuzzing recorded cassettes: Hypothesis looks for a chunking or a fault the stack
mishandles (`fuzz_cassette`), and one example found is replayed exactly (`run_example`,
`FuzzExample`). The ``harness-conformance fuzz`` command runs it over many cassettes."""

from ._engine import FuzzFailure, FuzzResult, fuzz_cassette, run_example
from ._examples import FuzzExample

__all__ = [
    "FuzzExample",
    "FuzzFailure",
    "FuzzResult",
    "fuzz_cassette",
    "run_example",
]

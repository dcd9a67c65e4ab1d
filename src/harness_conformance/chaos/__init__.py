"""Chaos replay: recorded sessions played again through the real HTTP and SDK layers.

`replay_foreign` turns recorded payloads into chunks itself; chaos replay serves the
recorded response bytes instead, through an HTTP transport (`ReplayTransport`) that the
provider SDK client of each wire format reads, and re-splits every body at byte
boundaries chosen by a ``cuts_for`` function (`replay_rechunked`). A sound stack says
the same thing whatever the chunking: `outline` and `differences` compare what two
replays of one recording said.

Cut lists come from `cuts_every` and `no_cuts`, or from the Hypothesis strategies
`chunkings` and `cassette_chunkings`, which import Hypothesis when they are called.

`replay_with_fault` spoils one served response with a `Fault` (an error status, a
connection reset, a truncated or malformed stream, a keep-alive flood, a stall) and
replays; `spoiled_answer` is what a server sends in its place (the recording proxy
serves it too); `fault_code` names the code the loop ends the turn with when it does not retry,
and the Hypothesis strategy `faults` draws faults for a cassette's responses.

`fuzz_cassette` searches one cassette with Hypothesis for a chunking or a fault (of
each label of `FAULT_LABELS`) the stack mishandles, and keeps each failure shrunk, as a
`FuzzExample` whose JSON form `run_example` replays exactly.
"""

from ._chunkings import (
    CHUNKING_KINDS,
    as_cuts_for,
    cassette_chunkings,
    chunkings,
    cuts_every,
    no_cuts,
    places,
)
from ._fault_strategies import applicable_kinds, faults
from ._faults import (
    FAULT_KINDS,
    FAULT_LABELS,
    Fault,
    SpoiledAnswer,
    events_of,
    fault_code,
    spoiled_answer,
)
from ._outline import differences, outline
from ._replay import (
    ChaosReplay,
    SdkMissing,
    areplay_rechunked,
    replay_rechunked,
    replay_with_fault,
    sdk_client,
)
from ._served import ServedResponse, served_response, served_responses
from ._transport import CutsFor, ReplayTransport, SeenRequest, split_at
from .fuzz import FuzzExample, FuzzFailure, FuzzResult, fuzz_cassette, run_example

__all__ = [
    "CHUNKING_KINDS",
    "FAULT_KINDS",
    "FAULT_LABELS",
    "ChaosReplay",
    "CutsFor",
    "Fault",
    "FuzzExample",
    "FuzzFailure",
    "FuzzResult",
    "ReplayTransport",
    "SdkMissing",
    "SeenRequest",
    "ServedResponse",
    "SpoiledAnswer",
    "applicable_kinds",
    "areplay_rechunked",
    "as_cuts_for",
    "cassette_chunkings",
    "chunkings",
    "cuts_every",
    "differences",
    "events_of",
    "fault_code",
    "faults",
    "fuzz_cassette",
    "no_cuts",
    "outline",
    "places",
    "replay_rechunked",
    "replay_with_fault",
    "run_example",
    "sdk_client",
    "served_response",
    "served_responses",
    "split_at",
    "spoiled_answer",
]

# The module users import these from, where pickle finds them too.
for _cls in (
    ChaosReplay,
    Fault,
    FuzzExample,
    FuzzFailure,
    FuzzResult,
    ReplayTransport,
    SdkMissing,
    SeenRequest,
    ServedResponse,
):
    _cls.__module__ = __name__
del _cls
